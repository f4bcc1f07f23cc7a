import type { Metrics } from '../../metrics.ts';

/** The figures of the status page, read from the process's own instruments (not by scraping). */
export interface ServiceStatus {
  openSockets: number;
  /** Anonymous connections of the public streams, sockets and streams together. */
  publicConnections: number;
  ingested: number;
  /** Telegrams per minute over the last minute of samples; null until a minute has passed. */
  ingestPerMinute: number | null;
  conversionFailures: number;
  latency: { count: number; meanSeconds: number | null; p50: number | null; p95: number | null };
}

const SAMPLE_MS = 10_000;
const WINDOW_SAMPLES = 6;

type Counter = Metrics['telegramsIngested'];

async function total(
  counter: Counter | Metrics['conversionFailures'] | Metrics['publicConnections'],
): Promise<number> {
  return (await counter.get()).values.reduce((sum, v) => sum + v.value, 0);
}

/** The upper bound of the bucket holding quantile `q` of a cumulative histogram. */
function quantile(buckets: Map<number, number>, count: number, q: number): number | null {
  if (count === 0) return null;
  for (const [bound, cumulative] of [...buckets].sort((a, b) => a[0] - b[0])) {
    if (cumulative >= q * count) return bound;
  }
  return Infinity;
}

/** Samples the ingest counter so the status page can tell a rate. Call stop() at shutdown. */
export function startStatus(metrics: Metrics): { read(): Promise<ServiceStatus>; stop(): void } {
  const samples: { at: number; total: number }[] = [];
  const sample = () =>
    void total(metrics.telegramsIngested).then((t) => {
      samples.push({ at: performance.now(), total: t });
      if (samples.length > WINDOW_SAMPLES + 1) samples.shift();
    });
  sample();
  const timer = setInterval(sample, SAMPLE_MS);
  timer.unref();
  return {
    stop: () => clearInterval(timer),
    async read() {
      const ingested = await total(metrics.telegramsIngested);
      const first = samples[0];
      const elapsed = first ? performance.now() - first.at : 0;
      const histogram = (await metrics.deliveryLatency.get()).values;
      let count = 0;
      let sum = 0;
      const buckets = new Map<number, number>();
      for (const v of histogram) {
        if (v.metricName?.endsWith('_count')) count += v.value;
        else if (v.metricName?.endsWith('_sum')) sum += v.value;
        else if (v.metricName?.endsWith('_bucket')) {
          const { le } = v.labels as { le?: string | number };
          const bound = le === '+Inf' ? Infinity : Number(le);
          buckets.set(bound, (buckets.get(bound) ?? 0) + v.value);
        }
      }
      return {
        openSockets: (await metrics.openWebSockets.get()).values[0]?.value ?? 0,
        publicConnections: await total(metrics.publicConnections),
        ingested,
        ingestPerMinute:
          first && samples.length > WINDOW_SAMPLES ? ((ingested - first.total) * 60_000) / elapsed : null,
        conversionFailures: await total(metrics.conversionFailures),
        latency: {
          count,
          meanSeconds: count > 0 ? sum / count : null,
          p50: quantile(buckets, count, 0.5),
          p95: quantile(buckets, count, 0.95),
        },
      };
    },
  };
}
