import type { Bus } from '../bus/types.ts';
import type { Clock } from '../clock.ts';
import type { Db } from '../db/types.ts';
import type { Logger } from '../log.ts';
import type { Metrics } from '../metrics.ts';
import type { IngestOutcome } from '../telegrams/ingest.ts';

/** What a network source needs of its process (a subset of the AppContext every process has). */
export interface SourceDeps {
  db: Db;
  bus: Bus;
  clock: Clock;
  log: Logger;
  metrics: Metrics;
}

/** Counts a stored telegram as every ingest path does (docs/operations.md metrics). */
export function countIngested(deps: SourceDeps, outcome: IngestOutcome & { ok: true }): void {
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
