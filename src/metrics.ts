import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** The service's Prometheus instruments, one registry per app instance. */
export interface Metrics {
  registry: Registry;
  httpDuration: Histogram<'method' | 'route' | 'status'>;
  openWebSockets: Gauge;
  telegramsIngested: Counter<'classification'>;
  /** JSON conversions stored with their XML telegram, by schema. */
  telegramsConverted: Counter<'schema'>;
  /** Conversions that failed (converter error or schema violation); the XML was still stored. */
  conversionFailures: Counter<'schema'>;
  /** XML telegrams stored whose data type has no JSON converter, by type (docs/conversion.md). */
  telegramsWithoutConverter: Counter<'type'>;
  /** Telegrams refused for their size (NAMAZU_MAX_TELEGRAM_BYTES), by the path that refused them. */
  telegramsTooLarge: Counter<'path'>;
  /** Seconds from a telegram's commit to its send on a WebSocket. */
  deliveryLatency: Histogram<'classification'>;
  /** Requests a network source made (docs/sources.md), by source and outcome. */
  sourceRequests: Counter<'source' | 'outcome'>;
  /** Telegrams a source received that the ingest refused, or could not fetch at all, with the URL logged. */
  sourceRejections: Counter<'source'>;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    httpDuration: new Histogram({
      name: 'namazu_http_request_duration_seconds',
      help: 'HTTP request latency by route',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
    openWebSockets: new Gauge({
      name: 'namazu_websocket_open_connections',
      help: 'WebSocket connections open on this process',
      registers: [registry],
    }),
    telegramsIngested: new Counter({
      name: 'namazu_telegrams_ingested_total',
      help: 'Telegrams stored (duplicates not counted)',
      labelNames: ['classification'],
      registers: [registry],
    }),
    telegramsConverted: new Counter({
      name: 'namazu_telegrams_converted_total',
      help: 'JSON conversions stored with their XML telegram',
      labelNames: ['schema'],
      registers: [registry],
    }),
    conversionFailures: new Counter({
      name: 'namazu_conversion_failures_total',
      help: 'Conversions that failed (converter error or schema violation); the XML telegram was still stored',
      labelNames: ['schema'],
      registers: [registry],
    }),
    telegramsWithoutConverter: new Counter({
      name: 'namazu_telegrams_without_converter_total',
      help: 'XML telegrams stored whose data type has no JSON converter',
      labelNames: ['type'],
      registers: [registry],
    }),
    telegramsTooLarge: new Counter({
      name: 'namazu_telegrams_too_large_total',
      help: 'Telegrams refused for being larger than NAMAZU_MAX_TELEGRAM_BYTES, by path (http, console, ingest)',
      labelNames: ['path'],
      registers: [registry],
    }),
    deliveryLatency: new Histogram({
      name: 'namazu_delivery_latency_seconds',
      help: 'Seconds from a telegram being committed to its send on a WebSocket',
      labelNames: ['classification'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
      registers: [registry],
    }),
    sourceRequests: new Counter({
      name: 'namazu_source_requests_total',
      help: 'Requests made by network sources, by outcome (ok, not_modified, failed)',
      labelNames: ['source', 'outcome'],
      registers: [registry],
    }),
    sourceRejections: new Counter({
      name: 'namazu_source_rejections_total',
      help: 'Telegrams of a network source that were refused by the ingest or could not be fetched',
      labelNames: ['source'],
      registers: [registry],
    }),
  };
}
