import js from '@eslint/js';
import importX from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

/**
 * The layers of docs/architecture.md: what each module of src/ may import from src/. Anything of
 * src/ not listed for a module is off limits to it (packages are not restricted).
 */
const domainBase = [
  'classifications.ts',
  'coalesced-job.ts',
  'batches.ts',
  'scopes.ts',
  'config.ts',
  'clock.ts',
  'log.ts',
  'metrics.ts',
  'errors.ts',
  'worker-code.ts',
];
const domain = [
  'db',
  'bus',
  'security',
  'accounts',
  'dpop',
  'issuer',
  'access',
  'telegrams',
  'conversion',
  'gd',
  'sessions',
  'parameter',
];
const surfaces = ['api', 'oauth', 'console', 'realtime', 'ops'];
const everything = [
  ...domainBase,
  ...domain,
  'context.ts',
  'http',
  ...surfaces,
  'sources',
  'retention',
  'webhooks',
  'cli',
  'server.ts',
  'demo.ts',
];
export const layers = {
  // The list of classifications, shared by config.ts (retention keys) and telegrams/classify.ts.
  'classifications.ts': [],
  // A job run one at a time whose requests coalesce (the real-time dispatcher and cut-off check, the webhook queuer and workers).
  'coalesced-job.ts': [],
  // Requests written in batches per key (one account's session starts, the public connection counts).
  'batches.ts': [],
  // The scopes of credentials: API keys (accounts/), OAuth clients and tokens (issuer/) and every surface.
  'scopes.ts': [],
  'config.ts': ['classifications.ts', 'errors.ts'],
  'clock.ts': [],
  'log.ts': [],
  'metrics.ts': [],
  // The error catalogue: every layer's errors carry its codes.
  'errors.ts': [],
  // How a worker thread or process loads its module, from the bundle or the sources (conversion/, telegrams/, webhooks/).
  'worker-code.ts': [],
  db: ['errors.ts'],
  bus: ['config.ts'],
  // Secrets, the credential reader and cache, the fixed-window limiter and the failure limits on it.
  security: ['clock.ts', 'db'],
  accounts: ['errors.ts', 'db', 'security', 'scopes.ts'],
  // DPoP proofs, nonces and replay, shared by the token endpoint and the data API.
  dpop: ['clock.ts', 'errors.ts', 'db', 'security'],
  // The authorization server's records: clients, codes, authorizations, tokens.
  issuer: ['clock.ts', 'scopes.ts', 'errors.ts', 'db', 'bus', 'security', 'accounts'],
  // The resource server's check of a request's credential (API key, Bearer or DPoP token).
  access: ['errors.ts', 'context.ts', 'db', 'bus', 'security', 'accounts', 'dpop', 'issuer'],
  // config.ts: the default size limit of a telegram (telegrams/size.ts).
  telegrams: [...domainBase, 'db', 'bus', 'conversion', 'gd'],
  // worker-code.ts: the thread that compiles the schema checks (conversion/validate.ts).
  conversion: ['worker-code.ts'],
  gd: ['errors.ts', 'db'],
  sessions: ['clock.ts', 'batches.ts', 'db', 'security', 'accounts'],
  // JMA's station lists of the parameter API (docs/parameter.md).
  parameter: ['errors.ts', 'db', 'bus'],
  // Telegram sources: JMA's feed, an upstream server, replay and generated scenarios (docs/sources.md).
  sources: [
    'config.ts',
    'clock.ts',
    'log.ts',
    'metrics.ts',
    'errors.ts',
    'db',
    'bus',
    'telegrams',
    'conversion',
  ],
  // Pruning by age and the store statistics of /metrics (docs/operations.md "Retention").
  retention: [...domainBase, 'db', 'bus'],
  // Webhooks: subscriptions, their queue and delivery, and the ready-made posts (docs/webhooks.md).
  // They follow the store as the real-time delivery does, through its one predicate (filter.ts)
  // and its `data` message (protocol.ts); the real-time surface imports nothing of them.
  webhooks: [...domainBase, ...domain, 'context.ts', 'realtime/filter.ts', 'realtime/protocol.ts'],
  'context.ts': [...domainBase, ...domain],
  http: [...domainBase, ...domain, 'context.ts'],
  api: [...domainBase, ...domain, 'context.ts', 'http', 'sources', 'webhooks'],
  // The authorization endpoint shows the sign-in and consent pages that console/ renders, through
  // the one interface of console/authorization/pages.ts.
  oauth: [...domainBase, ...domain, 'context.ts', 'http', 'console/authorization/pages.ts'],
  // The administration's scenario button starts what `POST /admin/v1/scenarios` starts.
  // The Webhooks area acts through the process's webhook delivery as `/v2/webhook` does.
  console: [...domainBase, ...domain, 'context.ts', 'http', 'sources', 'webhooks'],
  realtime: [...domainBase, ...domain, 'context.ts', 'http'],
  ops: [...domainBase, ...domain, 'context.ts', 'http'],
  'server.ts': [...domainBase, ...domain, 'context.ts', 'http', ...surfaces, 'retention', 'webhooks'],
  'demo.ts': [...domainBase, ...domain],
  cli: [...domainBase, ...domain, 'context.ts', 'server.ts', 'demo.ts', 'sources'],
};

const isFolder = (name) => !name.endsWith('.ts');
const zones = Object.entries(layers).flatMap(([module, allowed]) =>
  everything
    .filter((other) => other !== module && !allowed.includes(other))
    .map((other) => {
      const partly = allowed
        .filter((a) => a.startsWith(`${other}/`))
        .map((a) => `./${a.slice(other.length + 1)}`);
      const except = partly;
      return {
        target: isFolder(module) ? `./src/${module}/**` : `./src/${module}`,
        from: isFolder(other) ? `./src/${other}` : `./src/${other}`,
        ...(except.length > 0 ? { except } : {}),
        message: `docs/architecture.md: ${module} may not import ${other}.`,
      };
    }),
);

// Inside the console, the live view and the administration share only what lies beside them, and
// sign-in (sessions, CSRF, attempt limits) is the floor every area stands on: it imports no other
// part of the console.
const consoleZones = [
  ...[
    ['live', 'admin'],
    ['admin', 'live'],
  ].map(([area, other]) => ({
    target: `./src/console/${area}/**`,
    from: `./src/console/${other}`,
    message: `docs/architecture.md: console/${area} may not import console/${other}.`,
  })),
  {
    target: './src/console/signin/**',
    from: './src/console',
    except: ['./signin'],
    message: 'docs/architecture.md: console/signin may not import the rest of the console.',
  },
];

export default tseslint.config(
  { ignores: ['node_modules/', 'data/', 'coverage/', 'dist/', 'test-output/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        setImmediate: 'readonly',
        structuredClone: 'readonly',
        fetch: 'readonly',
        AbortController: 'readonly',
        TextEncoder: 'readonly',
        TextDecoder: 'readonly',
        performance: 'readonly',
        URLSearchParams: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['src/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver': { node: { extensions: ['.ts', '.js'] } },
    },
    rules: {
      'import-x/no-restricted-paths': ['error', { zones: [...zones, ...consoleZones] }],
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
    },
  },
  {
    // Functions that fit on a screen, in every folder of src/.
    files: ['src/**/*.ts'],
    rules: {
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }],
    },
  },
);
