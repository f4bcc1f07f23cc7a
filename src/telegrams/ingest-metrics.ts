import type { Logger } from '../log.ts';
import type { Metrics } from '../metrics.ts';
import type { IngestOutcome } from './ingest.ts';

/**
 * Counts an accepted telegram in the ingest instruments (docs/operations.md metrics) and logs a
 * failed conversion: one place for every ingest path of a serving process (HTTP, console, sources).
 */
export function countIngested(
  deps: { metrics: Metrics; log: Pick<Logger, 'warn'> },
  outcome: IngestOutcome & { ok: true },
): void {
  const { metrics } = deps;
  if (!outcome.stored.duplicate)
    metrics.telegramsIngested.inc({ classification: outcome.stored.classification });
  if (outcome.converted) metrics.telegramsConverted.inc({ schema: outcome.converted.schema.type });
  if (outcome.withoutConverter) metrics.telegramsWithoutConverter.inc({ type: outcome.withoutConverter });
  if (outcome.conversionFailure) {
    const { schema, reason } = outcome.conversionFailure;
    metrics.conversionFailures.inc({ schema: schema.type });
    deps.log.warn({ telegramId: outcome.stored.id, schema, reason }, 'JSON conversion failed');
  }
}
