import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** The service's Prometheus instruments, one registry per app instance. */
export interface Metrics {
  registry: Registry;
  httpDuration: Histogram<'method' | 'route' | 'status'>;
  openWebSockets: Gauge;
  /** Anonymous connections of the public streams open on this process, by transport (websocket, stream). */
  publicConnections: Gauge<'transport'>;
  /** Anonymous connections refused, by reason: total, address (per-address cap), rate, invalid. */
  publicRefused: Counter<'reason'>;
  telegramsIngested: Counter<'classification' | 'source'>;
  /** JSON conversions stored with their XML telegram, by schema. */
  telegramsConverted: Counter<'schema'>;
  /** Conversions that failed (converter error or schema violation); the XML was still stored. */
  conversionFailures: Counter<'schema'>;
  /** XML telegrams stored whose data type has no JSON converter, by type (docs/conversion.md). */
  telegramsWithoutConverter: Counter<'type'>;
  /** Telegrams refused for their size (NAMAZU_MAX_TELEGRAM_BYTES), by the path that refused them. */
  telegramsTooLarge: Counter<'path'>;
  /** Telegrams stored without their conversion because preparing them ran over the time budget. */
  preparationsOverBudget: Counter;
  /** Seconds from a telegram's commit to its send on a WebSocket. */
  deliveryLatency: Histogram<'classification'>;
  /** Requests a network source made (docs/sources.md), by source and outcome. */
  sourceRequests: Counter<'source' | 'outcome'>;
  /** Telegrams a source received that the ingest refused, or could not fetch at all, with the URL logged. */
  sourceRejections: Counter<'source'>;
  /** When a source last had a successful poll or message from its origin (Unix seconds). */
  sourceLastContact: Gauge<'source'>;
  /** When a source last brought a telegram that was stored (Unix seconds). */
  sourceLastTelegram: Gauge<'source'>;
  /** Telegrams (XML with their conversions) deleted by retention, by classification. */
  telegramsPruned: Counter<'classification'>;
  /** Events of /v2/gd deleted by retention, by projection (earthquake, eew). */
  gdEventsPruned: Counter<'projection'>;
  /** The retention setting of each classification and projection, in days (0 = forever). */
  retentionDays: Gauge<'classification'>;
  /** Pruning runs, by outcome: done, busy (another node held the lock), stopped, failed. */
  retentionRuns: Counter<'outcome'>;
  /** Seconds one pruning batch (one transaction) took. */
  retentionBatchDuration: Histogram;
  /** Telegrams stored, by classification, as of the last store statistics. */
  telegramsKept: Gauge<'classification'>;
  /** Reception time of the oldest telegram kept, by classification (Unix seconds). */
  oldestKept: Gauge<'classification'>;
  /** On-disk size of each table with its indexes and out-of-line values, in bytes. */
  tableBytes: Gauge<'table'>;
  /** When the store statistics above were last computed (Unix seconds). */
  storeStatsTime: Gauge;
  /** Seconds a database request waited for a pooled connection (only requests that waited). */
  dbPoolWait: Histogram;
  /** Database requests waiting for a pooled connection now. */
  dbPoolWaiting: Gauge;
  /** Webhook deliveries queued (one per telegram and subscription), by priority (eew, other). */
  webhooksQueued: Counter<'priority'>;
  /** Webhook attempts under way in this process. */
  webhooksInFlight: Gauge;
  /** Webhook attempts, by outcome: delivered, retry (failed, tried again later), failed (given up). */
  webhookAttempts: Counter<'outcome'>;
  /** Webhook deliveries waiting (due or backed off), and the age of the oldest (seconds), as last read. */
  webhookBacklog: Gauge;
  webhookBacklogAge: Gauge;
  /** Seconds from a delivery's queueing to the attempt that delivered it, by priority. */
  webhookLatency: Histogram<'priority'>;
}

/** Readings taken at each scrape from what the process holds. */
export interface MetricProbes {
  /** Requests waiting for a pooled database connection (PostgreSQL only). */
  dbPoolWaiting?: () => number;
}

export function createMetrics(probes: MetricProbes = {}): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  // Each group registers its instruments in the order /metrics lists them.
  const metrics = {
    registry,
    ...connectionInstruments(registry),
    ...telegramInstruments(registry),
    ...sourceInstruments(registry),
    ...storeInstruments(registry, probes),
    ...webhookInstruments(registry),
  };
  zeroAlertedCounters(metrics);
  return metrics;
}

/**
 * Puts the series that alert rules take `increase()` of (deploy/prometheus/namazu-rules.yml) at 0
 * from the start. A series born at its first event hides that event from `increase()`: the first
 * of two pruning failures would not count. The conversion failures are put at 0 by the ingest
 * (telegrams/ingest-metrics.ts `zeroConversionFailures`), which knows the schemas.
 */
function zeroAlertedCounters(metrics: Pick<Metrics, 'retentionRuns'>): void {
  for (const outcome of ['done', 'busy', 'stopped', 'failed']) metrics.retentionRuns.inc({ outcome }, 0);
}

/** HTTP requests and open connections. */
function connectionInstruments(registry: Registry) {
  return {
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
    publicConnections: new Gauge({
      name: 'namazu_public_open_connections',
      help: 'Anonymous connections of the public streams open on this process, by transport (websocket, stream)',
      labelNames: ['transport'],
      registers: [registry],
    }),
    publicRefused: new Counter({
      name: 'namazu_public_refused_total',
      help: 'Anonymous public connections refused, by reason (total, address, rate)',
      labelNames: ['reason'],
      registers: [registry],
    }),
  };
}

/** Ingest: telegrams stored, converted, refused, and their delivery. */
function telegramInstruments(registry: Registry) {
  return {
    telegramsIngested: new Counter({
      name: 'namazu_telegrams_ingested_total',
      help: 'Telegrams stored (duplicates not counted), by classification and by where they came in',
      labelNames: ['classification', 'source'],
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
    preparationsOverBudget: new Counter({
      name: 'namazu_telegram_preparations_over_budget_total',
      help: 'Telegrams whose preparation ran longer than NAMAZU_PREPARE_TIMEOUT_MS, stored without their conversion',
      registers: [registry],
    }),
    deliveryLatency: new Histogram({
      name: 'namazu_delivery_latency_seconds',
      help: 'Seconds from a telegram being committed to its send on a WebSocket',
      labelNames: ['classification'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
      registers: [registry],
    }),
  };
}

/** The network sources (docs/sources.md). */
function sourceInstruments(registry: Registry) {
  return {
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
    sourceLastContact: new Gauge({
      name: 'namazu_source_last_contact_timestamp_seconds',
      help: 'When a network source last had a successful poll or message from its origin (Unix time)',
      labelNames: ['source'],
      registers: [registry],
    }),
    sourceLastTelegram: new Gauge({
      name: 'namazu_source_last_telegram_timestamp_seconds',
      help: 'When a network source last brought a telegram that was stored (Unix time)',
      labelNames: ['source'],
      registers: [registry],
    }),
  };
}

/** Retention, the store statistics and the database pool. */
function storeInstruments(registry: Registry, probes: MetricProbes) {
  return {
    telegramsPruned: new Counter({
      name: 'namazu_telegrams_pruned_total',
      help: 'Telegrams (XML and JSON conversions) deleted by retention, by classification',
      labelNames: ['classification'],
      registers: [registry],
    }),
    gdEventsPruned: new Counter({
      name: 'namazu_gd_events_pruned_total',
      help: 'Merged earthquake events and early-warning events deleted by retention',
      labelNames: ['projection'],
      registers: [registry],
    }),
    retentionDays: new Gauge({
      name: 'namazu_retention_days',
      help: 'Days each classification (and each /v2/gd projection) is kept; 0 = forever',
      labelNames: ['classification'],
      registers: [registry],
    }),
    retentionRuns: new Counter({
      name: 'namazu_retention_runs_total',
      help: 'Pruning runs by outcome: done, busy (another node was pruning), stopped (server stopping), failed',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    retentionBatchDuration: new Histogram({
      name: 'namazu_retention_batch_duration_seconds',
      help: 'Seconds one pruning batch (one transaction) took',
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
      registers: [registry],
    }),
    telegramsKept: new Gauge({
      name: 'namazu_telegrams_kept',
      help: 'Telegrams stored (XML and JSON conversions), by classification, as of the last store statistics',
      labelNames: ['classification'],
      registers: [registry],
    }),
    oldestKept: new Gauge({
      name: 'namazu_telegrams_oldest_kept_timestamp_seconds',
      help: 'Reception time of the oldest telegram kept, by classification (Unix time)',
      labelNames: ['classification'],
      registers: [registry],
    }),
    tableBytes: new Gauge({
      name: 'namazu_store_table_bytes',
      help: 'On-disk size of each table with its indexes and out-of-line values',
      labelNames: ['table'],
      registers: [registry],
    }),
    storeStatsTime: new Gauge({
      name: 'namazu_store_stats_timestamp_seconds',
      help: 'When the store statistics (kept, oldest kept, table sizes) were last computed (Unix time)',
      registers: [registry],
    }),
    dbPoolWait: new Histogram({
      name: 'namazu_db_pool_wait_seconds',
      help: 'Seconds a database request waited for a pooled connection (requests that waited only)',
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
      registers: [registry],
    }),
    dbPoolWaiting: new Gauge({
      name: 'namazu_db_pool_waiting_requests',
      help: 'Database requests waiting for a pooled connection now',
      registers: [registry],
      collect() {
        if (probes.dbPoolWaiting) this.set(probes.dbPoolWaiting());
      },
    }),
  };
}

/** Webhook delivery (docs/webhooks.md). */
function webhookInstruments(registry: Registry) {
  return {
    webhooksQueued: new Counter({
      name: 'namazu_webhook_deliveries_queued_total',
      help: 'Webhook deliveries queued (one per telegram and matching subscription)',
      labelNames: ['priority'],
      registers: [registry],
    }),
    webhooksInFlight: new Gauge({
      name: 'namazu_webhook_attempts_in_flight',
      help: 'Webhook attempts under way in this process',
      registers: [registry],
    }),
    webhookAttempts: new Counter({
      name: 'namazu_webhook_attempts_total',
      help: 'Webhook attempts by outcome: delivered, retry (failed, tried again later), failed (given up)',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    webhookBacklog: new Gauge({
      name: 'namazu_webhook_backlog_deliveries',
      help: 'Webhook deliveries waiting to be delivered (due or backed off), as last read',
      registers: [registry],
    }),
    webhookBacklogAge: new Gauge({
      name: 'namazu_webhook_backlog_oldest_seconds',
      help: 'Age of the oldest webhook delivery waiting, in seconds, as last read',
      registers: [registry],
    }),
    webhookLatency: new Histogram({
      name: 'namazu_webhook_delivery_latency_seconds',
      help: 'Seconds from a webhook delivery being queued (or queued again by hand) to the attempt that delivered it',
      labelNames: ['priority'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5, 30, 300, 3600],
      registers: [registry],
    }),
  };
}
