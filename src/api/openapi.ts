import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { sharedPlugin } from '../http/plugins.ts';
import type { App } from '../http/surface.ts';

const DESCRIPTION = `The data API, authorization server and real-time stream of a Namazu server: JMA telegrams as the
production service's \`/v2\` API serves them, so its client libraries work unchanged.

**Credentials.** \`Authorization: Bearer ATn.…\` (an OAuth access token), \`Authorization: DPoP ATn.…\` with a
\`DPoP\` proof (RFC 9449), or an API key: \`Authorization: Basic base64("AKe.…:")\` or the \`key\` query
parameter. Tokens come from the OAuth endpoints below (authorization code with PKCE, client credentials,
refresh token); the server's metadata is at \`/.well-known/oauth-authorization-server\`.

**Answers.** Every JSON answer carries \`responseId\`, \`responseTime\` and \`status\` (\`ok\` or \`error\`);
an error also carries \`error: { message, code }\`.

**Real-time.** \`POST /v2/socket\` (scope \`socket.start\`) answers a single-use ticket and a URL; open a
WebSocket to that URL with the sub-protocol \`service.v2\`. The server sends \`start\`, then one \`data\`
message per telegram, and a \`ping\` every 30 s that the client answers with \`pong\`. \`GET /v2/socket\` lists
the open connections and \`DELETE /v2/socket/{id}\` closes one.`;

/**
 * The OpenAPI 3 document of every route registered after it (/openapi.json), and the same document
 * as an interactive reference at /reference: Swagger UI, served from the installed package (no
 * outside host). Registered first, so that the authorization server's routes are in it too. The
 * one surface that is not encapsulated: @fastify/swagger collects the routes through an `onRoute`
 * hook, which must be the app's to see the routes of the surfaces, each in its own scope.
 */
export const apiReference = sharedPlugin('namazu-api-reference', (app) => registerApiReference(app));

async function registerApiReference(app: App): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: { title: 'Namazu API', version: '2', description: DESCRIPTION },
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer' },
          apiKeyBasic: { type: 'http', scheme: 'basic' },
          apiKeyQuery: { type: 'apiKey', in: 'query', name: 'key' },
        },
      },
      security: [{ bearer: [] }, { apiKeyBasic: [] }, { apiKeyQuery: [] }],
    },
    transform: ({ schema, url, route }) => ({ schema: documented(url, route.method, schema), url }),
  });

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  await app.register(async (scope) => {
    scope.addHook('onSend', async (_request, reply, payload) => {
      reply.headers(REFERENCE_HEADERS);
      // The page of the package has no viewport: a phone would lay it out 980 px wide and shrink it.
      if (typeof payload === 'string' && payload.includes('<div id="swagger-ui">'))
        return payload.replace('<meta charset="UTF-8">', `<meta charset="UTF-8">${VIEWPORT}`);
      return payload;
    });
    await scope.register(swaggerUi, {
      routePrefix: '/reference',
      staticCSP: REFERENCE_CSP,
      // BaseLayout: no top bar (its box loads any URL's document).
      uiConfig: { layout: 'BaseLayout', docExpansion: 'list', deepLinking: true, validatorUrl: null },
      theme: { title: 'Namazu API reference', css: [{ filename: 'namazu.css', content: NARROW_SCREENS }] },
    });
  });
}

type Methods = string | readonly string[];

/** Paths of the data API and the health checks (every method they serve), with their group. */
const API_PATHS: [RegExp, string][] = [
  [/^\/v2\/(socket|stream)/, 'Real-time'],
  [/^\/v2\/webhook/, 'Webhooks'],
  [/^\/v2\/gd\//, 'Earthquakes and early warnings'],
  [/^\/v2\/parameter\//, 'Stations'],
  [/^\/(v[12]|telegram\/v1)\//, 'Telegrams'],
  [/^\/admin\/v1\//, 'Administration'],
  [/^\/(healthz|readyz)$/, 'Operations'],
];

const form = (fields: Record<string, string>, required: string[]) => ({
  content: {
    'application/x-www-form-urlencoded': {
      schema: {
        type: 'object',
        required,
        properties: Object.fromEntries(
          Object.entries(fields).map(([name, description]) => [name, { type: 'string', description }]),
        ),
      },
    },
  },
});

/**
 * The authorization server's endpoints (docs/oauth.md), described here: their routes parse forms
 * and redirects themselves and declare no schema. Other methods on these paths answer 405.
 */
const OAUTH_OPERATIONS: Record<string, Record<string, unknown>> = {
  'GET /.well-known/oauth-authorization-server': {
    summary: 'Authorization server metadata (RFC 8414)',
    tags: ['OAuth'],
    security: [],
  },
  'GET /account/oauth2/v1/auth': {
    summary: 'Authorization endpoint: sign-in and consent, then a redirect with a code',
    description:
      'Query: `client_id`, `response_type=code`, `redirect_uri`, `scope`, `state`, `code_challenge` and ' +
      '`code_challenge_method=S256` (required for public clients), optionally `response_mode` ' +
      '(`query`, `form_post`), `dpop_jkt`, `prompt=none`. Answers an HTML page, or a redirect to the ' +
      'client with `code` and `state`.',
    tags: ['OAuth'],
    security: [],
  },
  'POST /account/oauth2/v1/token': {
    summary: 'Token endpoint: authorization code, refresh token and client credentials grants',
    description:
      'Client authentication: HTTP Basic (`client_secret_basic`), `client_id` and `client_secret` in the form ' +
      '(`client_secret_post`), or `client_id` alone for public clients. A `DPoP` header binds the tokens to ' +
      'its key. Answers `{access_token, token_type, expires_in, refresh_token?, scope}`; errors as RFC 6749 §5.2.',
    tags: ['OAuth'],
    security: [],
    body: form(
      {
        grant_type: '`authorization_code`, `refresh_token` or `client_credentials`',
        code: 'authorization_code: the code',
        redirect_uri: 'authorization_code: the redirect URI of the authorization request',
        code_verifier: 'authorization_code: the PKCE verifier',
        refresh_token: 'refresh_token: the refresh token',
        scope: 'client_credentials, refresh_token: the scopes asked, space-separated',
        client_id: 'the client, when not in HTTP Basic',
        client_secret: 'client_secret_post: the secret',
      },
      ['grant_type'],
    ),
  },
  'POST /account/oauth2/v1/revoke': {
    summary: 'Revocation (RFC 7009): ends a token, and a refresh token its whole authorization',
    tags: ['OAuth'],
    security: [],
    body: form({ token: 'the token to revoke', client_id: 'the client, when not in HTTP Basic' }, ['token']),
  },
  'POST /account/oauth2/v1/introspect': {
    summary: "Introspection (RFC 7662) of the client's own tokens",
    tags: ['OAuth'],
    security: [],
    body: form({ token: 'the token to describe', client_id: 'the client, when not in HTTP Basic' }, [
      'token',
    ]),
  },
};

/** The schema a route shows in the document; routes of pages and other methods are hidden. */
function documented(url: string, methods: Methods, schema: object | undefined): Record<string, unknown> {
  const group = API_PATHS.find(([path]) => path.test(url));
  if (group) return { tags: [group[1]], ...schema };
  const method = typeof methods === 'string' ? methods : methods.length === 1 ? methods[0]! : '';
  const operation = OAUTH_OPERATIONS[`${method} ${url}`];
  return operation ? { ...schema, ...operation } : { ...schema, hide: true };
}

const VIEWPORT = '<meta name="viewport" content="width=device-width, initial-scale=1">';

// Swagger UI's own scripts and styles come from this origin; it sets element styles at run time.
const REFERENCE_CSP =
  "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; " +
  "object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const REFERENCE_HEADERS = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
};

/** Long paths and tables wrap instead of widening the page on a phone. */
const NARROW_SCREENS = `
.swagger-ui .opblock .opblock-summary { flex-wrap: wrap; }
.swagger-ui .opblock .opblock-summary-path { word-break: break-all; flex-shrink: 1; max-width: 100%; }
.swagger-ui .opblock .opblock-summary-description { flex-basis: 100%; }
.swagger-ui .info .title small pre { white-space: normal; }
.swagger-ui table { display: block; overflow-x: auto; max-width: 100%; }
.swagger-ui .markdown code, .swagger-ui .renderedMarkdown code { word-break: break-word; white-space: normal; }
.swagger-ui .wrapper { padding: 0 12px; box-sizing: border-box; max-width: 100%; }
.swagger-ui .scheme-container { padding: 12px 0; }
.swagger-ui .auth-wrapper { flex-wrap: wrap; }
.swagger-ui .highlight-code, .swagger-ui .microlight { max-width: 100%; overflow-x: auto; }
`;
