// The reference of bench/token.ts: node-oidc-provider with its in-memory adapter, issuing opaque
// client_credentials access tokens to one confidential client (client_secret_basic).
// Usage: node --import tsx bench/oidc-provider-reference.ts PORT CLIENT_ID CLIENT_SECRET
// Prints "ready" once listening.
import Provider from 'oidc-provider';

const [port, clientId, clientSecret] = process.argv.slice(2);
const issuer = `http://127.0.0.1:${port}`;
const provider = new Provider(issuer, {
  clients: [
    {
      client_id: clientId!,
      client_secret: clientSecret!,
      grant_types: ['client_credentials'],
      redirect_uris: [],
      response_types: [],
      token_endpoint_auth_method: 'client_secret_basic',
      scope: 'telegram.list',
    },
  ],
  scopes: ['telegram.list'],
  features: {
    clientCredentials: { enabled: true },
    devInteractions: { enabled: false },
  },
  routes: { token: '/account/oauth2/v1/token' },
});
// Silence the per-request "server_error" logging of the default configuration (there should be none).
provider.on('server_error', (_ctx: unknown, err: Error) => console.error(err));
provider.listen(Number(port), '127.0.0.1');
console.log('ready');
