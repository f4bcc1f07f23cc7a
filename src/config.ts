import { hostname } from 'node:os';
import { classifications, type Classification } from './classifications.ts';
import { CodedError } from './errors.ts';

/**
 * Every setting of the service, from command-line flags and NAMAZU_* environment variables (a flag
 * wins over the environment). Validated at start: an unknown NAMAZU_* variable or an invalid value
 * stops the process with a message naming the setting.
 */
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** postgres://… or null for the embedded database. */
  databaseUrl: string | null;
  dbPoolSize: number;
  /** Public origins of the four address roles; null = derived from each request's Host. */
  authUrl: string | null;
  baseUrl: string | null;
  dataUrl: string | null;
  websocketUrl: string | null;
  /** HMAC pepper for stored secrets; null = generated once and kept in the database. */
  secret: string | null;
  bus: 'memory' | 'postgres' | 'redis';
  redisUrl: string | null;
  workers: number;
  pollingIntervalMs: number;
  pingIntervalMs: number;
  /**
   * Most telegrams stored after a resume point (`after`, `Last-Event-ID`) that a resuming connection
   * catches up on; further back is refused (docs/realtime.md "Resume").
   */
  resumeMaxTelegrams: number;
  dpopNonce: boolean;
  /**
   * Which clients' refresh tokens rotate when the client's own setting is `default` (docs/oauth.md
   * "Refresh token rotation"): none (the production service's behaviour), public clients', all.
   */
  refreshRotation: RefreshRotationDefault;
  demo: boolean;
  /** Who may create an account in the console: anyone, or holders of an administrator's invitation. */
  signup: 'open' | 'invitation';
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  serverName: string;
  /** Proxies in front of the server, trusted to append to X-Forwarded-For (0: none). */
  trustProxy: number;
  bodyLimit: number;
  /** Largest telegram taken from any source, in bytes as received (docs/telegrams.md "Size"). */
  maxTelegramBytes: number;
  /** Longest a telegram's preparation may run before it is stored unconverted (docs/telegrams.md "Time budget"). */
  prepareTimeoutMs: number;
  /** A request must arrive in full (headers and body) within this time, or its connection is closed. */
  requestTimeoutMs: number;
  /** The request headers must arrive within this time. */
  headersTimeoutMs: number;
  /** An idle keep-alive connection is closed after this time. */
  keepAliveTimeoutMs: number;
  /** A connection on which nothing moves for this time is closed. */
  idleTimeoutMs: number;
  /** Requests whose body is still being received, per client address and in total (docs/security.md). */
  maxUploadsPerAddress: number;
  maxUploads: number;
  /** Bound on the list answers each process keeps, in bytes (docs/operations.md "Memory"). */
  answerCacheBytes: number;
  /** Bearer token that opens /metrics to any address; null = loopback clients only. */
  metricsToken: string | null;
  /** Sources that feed the service from the network (docs/sources.md); none by default. */
  sources: SourceName[];
  /** Atom feeds the JMA feed source polls. */
  jmaFeedUrls: string[];
  /** Pause between two polls of a high-frequency JMA feed (at least MIN_JMA_FEED_INTERVAL_MS). */
  jmaFeedIntervalMs: number;
  /** Base URL of the upstream service.v2 server (its data API), or null. */
  upstreamUrl: string | null;
  upstreamApiKey: string | null;
  upstreamClientId: string | null;
  upstreamClientSecret: string | null;
  /** OAuth token endpoint of the upstream; null = {upstreamUrl}/account/oauth2/v1/token. */
  upstreamTokenUrl: string | null;
  /** Where the upstream serves telegram bodies, when not on upstreamUrl's origin. */
  upstreamDataUrl: string | null;
  /** Classifications relayed; each also names the scope the relay asks for (docs/sources.md). */
  upstreamClassifications: Classification[];
  /** Simultaneous sockets to the upstream (2 = redundancy; deliveries are deduplicated). */
  upstreamConnections: 1 | 2;
  /**
   * Days each classification's telegrams (with their JSON conversions) and each projection
   * (`gd.earthquake`, `gd.eew`) are kept; 0 = forever (docs/operations.md "Retention").
   */
  retentionDays: Record<RetentionKey, number>;
  /** Pause between two pruning runs; 0 = never prune. */
  retentionIntervalMs: number;
  /** Time one pruning transaction aims at (its size follows); 0 = by engine (4 ms embedded, 10 ms PostgreSQL). */
  retentionBatchMs: number;
  /**
   * Classifications anyone may read without credentials on the public streams (docs/realtime.md
   * "Public streams"); empty = no public stream.
   */
  publicClassifications: Classification[];
  /** Anonymous public connections one process holds at most, in total and per client address. */
  publicMaxConnections: number;
  publicMaxPerAddress: number;
  /** New public connections one client address may open per minute, counted across every process. */
  publicConnectsPerMinute: number;
  /**
   * Most stored telegrams an anonymous connection of the public streams catches up on when it
   * resumes (within `resumeMaxTelegrams`; docs/realtime.md "Public streams").
   */
  publicResumeMaxTelegrams: number;
  /**
   * This node queues and sends webhook deliveries (docs/webhooks.md "Which nodes deliver"); off, it
   * only serves the webhook API and test events, and nodes that deliver do the rest.
   */
  webhookDelivery: boolean;
  /** Webhooks may post to loopback, private and link-local addresses, and over http (docs/webhooks.md "Safety"). */
  webhookAllowPrivate: boolean;
  /** Time limit of one webhook attempt: connection, request and the response's status. */
  webhookTimeoutMs: number;
  /** First wait before a webhook retry; it doubles at each retry (full jitter), up to an hour. */
  webhookRetryBaseMs: number;
}

/** What retention settings name: the ten classifications and the two projections of /v2/gd. */
export const RETENTION_KEYS = [...classifications, 'gd.earthquake', 'gd.eew'] as const;
export type RetentionKey = (typeof RETENTION_KEYS)[number];

/**
 * Default retention, in days (0 = forever). The production service keeps the bodies of every
 * classification for about 180 days, and those of earthquakes, volcanoes, weather warnings and
 * early warnings beyond that (docs/operations.md "Retention"): small and precious classes are kept
 * forever, weather warnings for more than a year, the large short-lived ones for 180 days.
 */
export const DEFAULT_RETENTION_DAYS: Readonly<Record<RetentionKey, number>> = {
  'eew.forecast': 0,
  'eew.warning': 0,
  'eew.realtime': 0,
  'telegram.earthquake': 0,
  'telegram.volcano': 0,
  'telegram.weather': 400,
  'telegram.forecast': 180,
  'telegram.observation': 180,
  'telegram.scheduled': 180,
  'telegram.lightning': 180,
  'gd.earthquake': 0,
  'gd.eew': 0,
};

/** The longest retention that may be set: a century, in days. */
const MAX_RETENTION_DAYS = 36_500;

export const REFRESH_ROTATION_DEFAULTS = ['off', 'public', 'all'] as const;
export type RefreshRotationDefault = (typeof REFRESH_ROTATION_DEFAULTS)[number];

export const SOURCE_NAMES = ['jma-feed', 'upstream'] as const;
export type SourceName = (typeof SOURCE_NAMES)[number];

/** JMA updates its high-frequency feeds once a minute: polling faster gains nothing (docs/sources.md). */
export const MIN_JMA_FEED_INTERVAL_MS = 30_000;

/** JMA's published feeds: high-frequency (about ten minutes of entries) and long-term (several days). */
export const JMA_FEED_URLS = ['regular', 'extra', 'eqvol', 'other'].flatMap((name) => [
  `https://www.data.jma.go.jp/developer/xml/feed/${name}.xml`,
  `https://www.data.jma.go.jp/developer/xml/feed/${name}_l.xml`,
]);

/**
 * The default largest telegram: JMA's largest real ones run to about 6 MB (weather-warning
 * documents), so 16 MiB leaves room to spare (docs/telegrams.md "Size").
 */
export const DEFAULT_MAX_TELEGRAM_BYTES = 16 * 1024 * 1024;
/**
 * The default time budget of a telegram's preparation: three times what a telegram of the largest
 * size with real content took on a 2-core machine under heavy load (docs/telegrams.md "Time budget").
 */
export const DEFAULT_PREPARE_TIMEOUT_MS = 30_000;
/** Above this, 20 telegrams ingested at once would need gigabytes (docs/telegrams.md "Size"). */
const MAX_TELEGRAM_BYTES_CEILING = 64 * 1024 * 1024;

export class ConfigError extends CodedError {
  constructor(message: string) {
    super('CONFIG_INVALID', { message });
  }
}

type Parser<T> = (raw: string, name: string) => T;

const int =
  (min: number, max: number): Parser<number> =>
  (raw, name) => {
    if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be an integer, got "${raw}"`);
    const n = Number(raw);
    if (n < min || n > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${n}`);
    return n;
  };

const bool: Parser<boolean> = (raw, name) => {
  if (['1', 'true', 'yes', 'on'].includes(raw.toLowerCase())) return true;
  if (['0', 'false', 'no', 'off'].includes(raw.toLowerCase())) return false;
  throw new ConfigError(`${name} must be true or false (1/0), got "${raw}"`);
};

/**
 * How many proxies are in front (NAMAZU_TRUST_PROXY): `true` is one, `false` none. Only the addresses
 * those proxies appended to X-Forwarded-For are believed; what a client wrote before them is not.
 */
const proxyHops: Parser<number> = (raw, name) => {
  const lower = raw.toLowerCase();
  if (['true', 'yes', 'on'].includes(lower)) return 1;
  if (['false', 'no', 'off'].includes(lower)) return 0;
  if (/^\d{1,2}$/.test(raw) && Number(raw) <= 16) return Number(raw);
  throw new ConfigError(
    `${name} must be how many proxies are in front (0 to 16) or true/false, got "${raw}"`,
  );
};

const oneOf =
  <T extends string>(...values: T[]): Parser<T> =>
  (raw, name) => {
    if (!(values as string[]).includes(raw))
      throw new ConfigError(`${name} must be one of ${values.join(', ')}, got "${raw}"`);
    return raw as T;
  };

const text: Parser<string> = (raw, name) => {
  if (raw.length === 0) throw new ConfigError(`${name} must not be empty`);
  return raw;
};

const urlOf =
  (...protocols: string[]): Parser<string> =>
  (raw, name) => {
    let u: URL;
    try {
      u = new URL(raw);
    } catch {
      throw new ConfigError(`${name} must be a URL, got "${raw}"`);
    }
    if (!protocols.includes(u.protocol))
      throw new ConfigError(`${name} must be a ${protocols.join(' or ')} URL, got "${raw}"`);
    return raw;
  };

/** A comma-separated list of non-empty items, each checked by `item`; duplicates dropped. */
const listOf =
  <T extends string>(item: Parser<T>): Parser<T[]> =>
  (raw, name) => {
    const items = raw.split(',').map((part) => part.trim());
    if (items.some((part) => part === ''))
      throw new ConfigError(`${name} must be a comma-separated list without empty items, got "${raw}"`);
    return [...new Set(items.map((part) => item(part, name)))];
  };

/** A public origin: scheme, host and optional port; no path, query or fragment. */
const origin =
  (...protocols: string[]): Parser<string> =>
  (raw, name) => {
    const u = new URL(urlOf(...protocols)(raw, name));
    if ((u.pathname !== '/' && u.pathname !== '') || u.search || u.hash || u.username)
      throw new ConfigError(`${name} must be an origin without path, e.g. https://api.example.com`);
    return u.origin;
  };

interface Setting<K extends keyof Config> {
  key: K;
  env: string;
  flag?: string;
  parse: Parser<Config[K]>;
}

/**
 * `key=days` pairs, comma-separated, over the defaults (`telegram.forecast=30,gd.eew=3650`): each key
 * a classification or a projection of RETENTION_KEYS, each value whole days (0 = forever).
 */
const retentionDays: Parser<Record<RetentionKey, number>> = (raw, name) => {
  const out = { ...DEFAULT_RETENTION_DAYS };
  for (const part of listOf(text)(raw, name)) {
    const m = /^([a-z.]+)=(\d+)$/.exec(part);
    if (!m || !(RETENTION_KEYS as readonly string[]).includes(m[1]!))
      throw new ConfigError(
        `${name} takes key=days pairs with keys among ${RETENTION_KEYS.join(', ')}, got "${part}"`,
      );
    out[m[1] as RetentionKey] = int(0, MAX_RETENTION_DAYS)(m[2]!, `${name} ${m[1]}`);
  }
  return out;
};

function setting<K extends keyof Config>(
  key: K,
  env: string,
  parse: Parser<Config[K]>,
  flag?: string,
): Setting<K> {
  return { key, env, parse, flag };
}

export const settings = [
  setting('port', 'NAMAZU_PORT', int(0, 65535), '--port'),
  setting('host', 'NAMAZU_HOST', text, '--host'),
  setting('dataDir', 'NAMAZU_DATA_DIR', text, '--data-dir'),
  setting('databaseUrl', 'NAMAZU_DATABASE_URL', urlOf('postgres:', 'postgresql:'), '--database-url'),
  setting('dbPoolSize', 'NAMAZU_DB_POOL_SIZE', int(1, 200)),
  setting('authUrl', 'NAMAZU_AUTH_URL', origin('http:', 'https:')),
  setting('baseUrl', 'NAMAZU_BASE_URL', origin('http:', 'https:')),
  setting('dataUrl', 'NAMAZU_DATA_URL', origin('http:', 'https:')),
  setting('websocketUrl', 'NAMAZU_WEBSOCKET_URL', origin('ws:', 'wss:')),
  setting('secret', 'NAMAZU_SECRET', text),
  setting('bus', 'NAMAZU_BUS', oneOf('memory', 'postgres', 'redis'), '--bus'),
  setting('redisUrl', 'NAMAZU_REDIS_URL', urlOf('redis:', 'rediss:')),
  setting('workers', 'NAMAZU_WORKERS', int(1, 64), '--workers'),
  setting('pollingIntervalMs', 'NAMAZU_POLLING_INTERVAL_MS', int(0, 3_600_000)),
  setting('pingIntervalMs', 'NAMAZU_PING_INTERVAL_MS', int(1000, 3_600_000)),
  setting('resumeMaxTelegrams', 'NAMAZU_RESUME_MAX_TELEGRAMS', int(0, 1_000_000)),
  setting('dpopNonce', 'NAMAZU_DPOP_NONCE', bool),
  setting('refreshRotation', 'NAMAZU_REFRESH_ROTATION', oneOf(...REFRESH_ROTATION_DEFAULTS)),
  setting('demo', 'NAMAZU_DEMO', bool),
  setting('signup', 'NAMAZU_SIGNUP', oneOf('open', 'invitation')),
  setting(
    'logLevel',
    'NAMAZU_LOG_LEVEL',
    oneOf('fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'),
  ),
  setting('serverName', 'NAMAZU_SERVER_NAME', text),
  setting('trustProxy', 'NAMAZU_TRUST_PROXY', proxyHops),
  setting('bodyLimit', 'NAMAZU_BODY_LIMIT', int(1024, 16 * 1024 * 1024)),
  setting('maxTelegramBytes', 'NAMAZU_MAX_TELEGRAM_BYTES', int(64 * 1024, MAX_TELEGRAM_BYTES_CEILING)),
  setting('prepareTimeoutMs', 'NAMAZU_PREPARE_TIMEOUT_MS', int(100, 600_000)),
  setting('requestTimeoutMs', 'NAMAZU_REQUEST_TIMEOUT_MS', int(1000, 3_600_000)),
  setting('headersTimeoutMs', 'NAMAZU_HEADERS_TIMEOUT_MS', int(1000, 3_600_000)),
  setting('keepAliveTimeoutMs', 'NAMAZU_KEEP_ALIVE_TIMEOUT_MS', int(1000, 3_600_000)),
  setting('idleTimeoutMs', 'NAMAZU_IDLE_TIMEOUT_MS', int(1000, 3_600_000)),
  setting('maxUploadsPerAddress', 'NAMAZU_MAX_UPLOADS_PER_ADDRESS', int(1, 100_000)),
  setting('maxUploads', 'NAMAZU_MAX_UPLOADS', int(1, 1_000_000)),
  setting('answerCacheBytes', 'NAMAZU_ANSWER_CACHE_BYTES', int(0, 16 * 1024 * 1024 * 1024)),
  setting('metricsToken', 'NAMAZU_METRICS_TOKEN', text),
  setting('sources', 'NAMAZU_SOURCES', listOf(oneOf(...SOURCE_NAMES))),
  setting('jmaFeedUrls', 'NAMAZU_JMA_FEED_URLS', listOf(urlOf('http:', 'https:'))),
  setting('jmaFeedIntervalMs', 'NAMAZU_JMA_FEED_INTERVAL_MS', int(MIN_JMA_FEED_INTERVAL_MS, 3_600_000)),
  setting('upstreamUrl', 'NAMAZU_UPSTREAM_URL', urlOf('http:', 'https:')),
  setting('upstreamApiKey', 'NAMAZU_UPSTREAM_API_KEY', text),
  setting('upstreamClientId', 'NAMAZU_UPSTREAM_CLIENT_ID', text),
  setting('upstreamClientSecret', 'NAMAZU_UPSTREAM_CLIENT_SECRET', text),
  setting('upstreamTokenUrl', 'NAMAZU_UPSTREAM_TOKEN_URL', urlOf('http:', 'https:')),
  setting('upstreamDataUrl', 'NAMAZU_UPSTREAM_DATA_URL', urlOf('http:', 'https:')),
  setting('upstreamClassifications', 'NAMAZU_UPSTREAM_CLASSIFICATIONS', listOf(oneOf(...classifications))),
  setting('upstreamConnections', 'NAMAZU_UPSTREAM_CONNECTIONS', (raw, name) =>
    oneOf('1', '2')(raw, name) === '2' ? 2 : 1,
  ),
  setting('retentionDays', 'NAMAZU_RETENTION_DAYS', retentionDays),
  setting('retentionIntervalMs', 'NAMAZU_RETENTION_INTERVAL_MS', int(0, 7 * 86_400_000)),
  setting('retentionBatchMs', 'NAMAZU_RETENTION_BATCH_MS', int(0, 10_000)),
  setting('publicClassifications', 'NAMAZU_PUBLIC_CLASSIFICATIONS', listOf(oneOf(...classifications))),
  setting('publicMaxConnections', 'NAMAZU_PUBLIC_MAX_CONNECTIONS', int(1, 1_000_000)),
  setting('publicMaxPerAddress', 'NAMAZU_PUBLIC_MAX_PER_ADDRESS', int(1, 1_000_000)),
  setting('publicConnectsPerMinute', 'NAMAZU_PUBLIC_CONNECTS_PER_MINUTE', int(1, 1_000_000)),
  setting('publicResumeMaxTelegrams', 'NAMAZU_PUBLIC_RESUME_MAX_TELEGRAMS', int(0, 1_000_000)),
  setting('webhookDelivery', 'NAMAZU_WEBHOOK_DELIVERY', bool),
  setting('webhookAllowPrivate', 'NAMAZU_WEBHOOK_ALLOW_PRIVATE', bool),
  setting('webhookTimeoutMs', 'NAMAZU_WEBHOOK_TIMEOUT_MS', int(100, 60_000)),
  setting('webhookRetryBaseMs', 'NAMAZU_WEBHOOK_RETRY_BASE_MS', int(10, 600_000)),
] as const;

export function defaults(): Config {
  return {
    port: 8080,
    host: '0.0.0.0',
    dataDir: './data',
    databaseUrl: null,
    dbPoolSize: 20,
    authUrl: null,
    baseUrl: null,
    dataUrl: null,
    websocketUrl: null,
    secret: null,
    bus: 'memory',
    redisUrl: null,
    workers: 1,
    pollingIntervalMs: 2000,
    pingIntervalMs: 30_000,
    resumeMaxTelegrams: 10_000,
    dpopNonce: true,
    refreshRotation: 'off',
    demo: true,
    signup: 'open',
    logLevel: 'info',
    serverName: hostname(),
    trustProxy: 0,
    bodyLimit: 64 * 1024,
    maxTelegramBytes: DEFAULT_MAX_TELEGRAM_BYTES,
    prepareTimeoutMs: DEFAULT_PREPARE_TIMEOUT_MS,
    requestTimeoutMs: 30_000,
    headersTimeoutMs: 10_000,
    // Longer than the idle time of every proxy or load balancer in front (60 s for nginx's upstream
    // connections and most cloud balancers), so that none sends a request on a connection the
    // server is closing; Fastify's own default, for the same reason.
    keepAliveTimeoutMs: 72_000,
    idleTimeoutMs: 60_000,
    maxUploadsPerAddress: 8,
    maxUploads: 128,
    answerCacheBytes: 64 * 1024 * 1024,
    metricsToken: null,
    sources: [],
    jmaFeedUrls: JMA_FEED_URLS,
    jmaFeedIntervalMs: 60_000,
    upstreamUrl: null,
    upstreamApiKey: null,
    upstreamClientId: null,
    upstreamClientSecret: null,
    upstreamTokenUrl: null,
    upstreamDataUrl: null,
    upstreamClassifications: [
      'telegram.earthquake',
      'telegram.volcano',
      'telegram.weather',
      'telegram.scheduled',
    ],
    upstreamConnections: 1,
    retentionDays: { ...DEFAULT_RETENTION_DAYS },
    retentionIntervalMs: 3_600_000,
    retentionBatchMs: 0,
    publicClassifications: [],
    publicMaxConnections: 10_000,
    publicMaxPerAddress: 20,
    publicConnectsPerMinute: 60,
    publicResumeMaxTelegrams: 1000,
    webhookDelivery: true,
    webhookAllowPrivate: false,
    webhookTimeoutMs: 10_000,
    webhookRetryBaseMs: 5_000,
  };
}

/**
 * Builds the configuration from the environment and from flags already split out of the command
 * line (flag name → value). Throws ConfigError naming the setting on anything unknown or invalid.
 */
export function loadConfig(env: NodeJS.ProcessEnv, flags: Record<string, string> = {}): Config {
  const cfg = defaults() as unknown as Record<string, unknown>;
  const knownEnv = new Set<string>(settings.map((s) => s.env));
  // Variables other tools or test harnesses use under our prefix, not settings of the server.
  const foreign = /^NAMAZU_(TEST_|FIXTURES$|BENCH_|WORKER_SLOT$)/;
  for (const name of Object.keys(env)) {
    if (name === 'NAMAZU_INGEST_BODY_LIMIT')
      throw new ConfigError('NAMAZU_INGEST_BODY_LIMIT is now NAMAZU_MAX_TELEGRAM_BYTES (every source)');
    if (name.startsWith('NAMAZU_') && !knownEnv.has(name) && !foreign.test(name))
      throw new ConfigError(`unknown setting ${name}`);
  }
  for (const s of settings) {
    const raw = env[s.env];
    if (raw !== undefined && raw !== '') cfg[s.key] = s.parse(raw, s.env);
  }
  const knownFlags = new Map<string, (typeof settings)[number]>();
  for (const s of settings) if ('flag' in s && s.flag) knownFlags.set(s.flag, s);
  for (const [flag, raw] of Object.entries(flags)) {
    const s = knownFlags.get(flag);
    if (!s) throw new ConfigError(`unknown option ${flag}`);
    cfg[s.key] = s.parse(raw, flag);
  }
  const c = cfg as unknown as Config;
  // A shared PostgreSQL installation gets no demo account unless asked for (NAMAZU_DEMO=1).
  if (!env.NAMAZU_DEMO && c.databaseUrl) c.demo = false;
  // A demo installation lets anyone sign up; any other needs an invitation unless told otherwise.
  if (!env.NAMAZU_SIGNUP && !c.demo) c.signup = 'invitation';
  // On PostgreSQL other processes may store telegrams too: unless told otherwise, listen for them.
  if (!env.NAMAZU_BUS && flags['--bus'] === undefined && c.databaseUrl) c.bus = 'postgres';
  if (c.bus === 'postgres' && !c.databaseUrl)
    throw new ConfigError('NAMAZU_BUS=postgres needs NAMAZU_DATABASE_URL (a PostgreSQL server)');
  if (c.bus === 'redis' && !c.redisUrl) throw new ConfigError('NAMAZU_BUS=redis needs NAMAZU_REDIS_URL');
  if (c.workers > 1 && !c.databaseUrl)
    throw new ConfigError('--workers above 1 needs NAMAZU_DATABASE_URL (a PostgreSQL server)');
  if (c.workers > 1 && c.bus === 'memory')
    throw new ConfigError('--workers above 1 needs a shared bus: NAMAZU_BUS=postgres or redis');
  checkUpstream(c);
  return c;
}

/** The upstream relay needs an address and exactly one kind of credential. */
function checkUpstream(c: Config): void {
  const byKey = c.upstreamApiKey !== null;
  const byClient = c.upstreamClientId !== null || c.upstreamClientSecret !== null;
  if (byKey && byClient)
    throw new ConfigError(
      'NAMAZU_UPSTREAM_API_KEY and NAMAZU_UPSTREAM_CLIENT_ID/SECRET exclude each other: give one credential',
    );
  if (byClient && (c.upstreamClientId === null || c.upstreamClientSecret === null))
    throw new ConfigError('NAMAZU_UPSTREAM_CLIENT_ID and NAMAZU_UPSTREAM_CLIENT_SECRET go together');
  if (!c.sources.includes('upstream')) return;
  if (c.upstreamUrl === null) throw new ConfigError('NAMAZU_SOURCES=upstream needs NAMAZU_UPSTREAM_URL');
  if (!byKey && !byClient)
    throw new ConfigError(
      'NAMAZU_SOURCES=upstream needs NAMAZU_UPSTREAM_API_KEY or NAMAZU_UPSTREAM_CLIENT_ID and NAMAZU_UPSTREAM_CLIENT_SECRET',
    );
}
