import { converterFor, convertibleTypes } from '../conversion/registry.ts';
import type { Logger } from '../log.ts';
import type { Metrics } from '../metrics.ts';
import type { IngestOutcome } from './ingest.ts';

/**
 * Where a telegram came in, the `source` label of `namazu_telegrams_ingested_total`
 * (docs/operations.md metrics): `http` POST /admin/v1/telegrams, `console` the console's upload
 * form, `cli` `namazu ingest` run in the server, `replay` and `scenario` (command, API or console),
 * the network sources `jma-feed` and `upstream`; `other` for a caller that names none.
 */
export type IngestSource =
  'http' | 'console' | 'cli' | 'replay' | 'scenario' | 'jma-feed' | 'upstream' | 'other';

/** The instruments ingest counts in. */
export type IngestMetrics = Pick<
  Metrics,
  | 'telegramsTooLarge'
  | 'telegramsIngested'
  | 'telegramsConverted'
  | 'telegramsWithoutConverter'
  | 'conversionFailures'
>;

/**
 * Counts a stored telegram in the ingest instruments and logs a failed conversion. Called by the
 * ingest pipeline itself (ingest.ts `commit`), the one place every source passes through.
 */
export function countIngested(
  metrics: IngestMetrics,
  outcome: IngestOutcome & { ok: true },
  deps: { log?: Pick<Logger, 'warn'>; source?: IngestSource },
): void {
  if (!outcome.stored.duplicate)
    metrics.telegramsIngested.inc({
      classification: outcome.stored.classification,
      source: deps.source ?? 'other',
    });
  if (outcome.converted) metrics.telegramsConverted.inc({ schema: outcome.converted.schema.type });
  if (outcome.withoutConverter) metrics.telegramsWithoutConverter.inc({ type: outcome.withoutConverter });
  if (outcome.conversionFailure) {
    const { schema, reason } = outcome.conversionFailure;
    metrics.conversionFailures.inc({ schema: schema.type });
    deps.log?.warn({ telegramId: outcome.stored.id, schema, reason }, 'JSON conversion failed');
  }
}

/**
 * Puts the conversion failures of every schema at 0 from the start: a series born at its first
 * failure hides that failure from the alert's `increase()` (deploy/prometheus/namazu-rules.yml).
 */
export function zeroConversionFailures(metrics: Pick<Metrics, 'conversionFailures'>): void {
  const schemas = new Set(convertibleTypes().map((type) => converterFor(type)!.schema.type));
  for (const schema of schemas) metrics.conversionFailures.inc({ schema }, 0);
}
