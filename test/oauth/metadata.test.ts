import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, test } from 'node:test';
import * as oauth from 'oauth4webapi';
import * as client from 'openid-client';
import { startHarness, type Harness } from '../support/browser.ts';

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(() => h.close());

test('M1: oauth4webapi and openid-client accept the metadata document', async () => {
  const issuer = new URL(h.origin);
  const as = await oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', [oauth.allowInsecureRequests]: true }),
  );
  assert.equal(as.issuer, h.origin);

  const config = await client.discovery(issuer, h.clients.P1.client.clientId, undefined, client.None(), {
    algorithm: 'oauth2',
    execute: [client.allowInsecureRequests],
  });
  assert.equal(config.serverMetadata().issuer, h.origin);
  assert.equal(config.serverMetadata().supportsPKCE(), true);
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: 'http://127.0.0.1:8123/callback',
    scope: 'telegram.list',
    state: 's',
    code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()),
    code_challenge_method: 'S256',
  });
  const res = await fetch(url, { redirect: 'manual' });
  // A valid request: the user agent is sent to sign in.
  assert.equal(res.status, 303);
  assert.match(res.headers.get('location')!, /\/account\/signin\?return_to=/);
});

test('M2: exactly the fields docs/oauth.md lists, endpoints under the public auth URL', async () => {
  const res = await fetch(`${h.origin}/.well-known/oauth-authorization-server`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type')!, /^application\/json/);
  const doc = (await res.json()) as Record<string, unknown>;
  const auth = h.origin;
  const methods = ['client_secret_basic', 'client_secret_post', 'none'];
  assert.deepEqual(Object.keys(doc).sort(), [
    'authorization_endpoint',
    'authorization_response_iss_parameter_supported',
    'code_challenge_methods_supported',
    'dpop_signing_alg_values_supported',
    'grant_types_supported',
    'introspection_endpoint',
    'issuer',
    'response_modes_supported',
    'response_types_supported',
    'revocation_endpoint',
    'revocation_endpoint_auth_methods_supported',
    'scopes_supported',
    'token_endpoint',
    'token_endpoint_auth_methods_supported',
  ]);
  assert.equal(doc.issuer, auth);
  assert.equal(doc.authorization_endpoint, `${auth}/account/oauth2/v1/auth`);
  assert.equal(doc.token_endpoint, `${auth}/account/oauth2/v1/token`);
  assert.equal(doc.revocation_endpoint, `${auth}/account/oauth2/v1/revoke`);
  assert.equal(doc.introspection_endpoint, `${auth}/account/oauth2/v1/introspect`);
  assert.deepEqual(doc.response_types_supported, ['code']);
  assert.deepEqual(doc.response_modes_supported, ['query', 'fragment', 'form_post']);
  assert.deepEqual(doc.grant_types_supported, ['authorization_code', 'refresh_token', 'client_credentials']);
  assert.deepEqual(doc.code_challenge_methods_supported, ['S256', 'plain']);
  assert.deepEqual(doc.token_endpoint_auth_methods_supported, methods);
  assert.deepEqual(doc.revocation_endpoint_auth_methods_supported, methods);
  assert.deepEqual(doc.dpop_signing_alg_values_supported, ['ES256', 'EdDSA', 'PS256', 'RS256']);
  assert.equal(doc.authorization_response_iss_parameter_supported, true);
  assert.ok((doc.scopes_supported as string[]).includes('telegram.list'));
  assert.ok((doc.scopes_supported as string[]).includes('socket.start'));
});

test('the configured public auth URL wins over the Host header', async () => {
  h.server.ctx.config.authUrl = 'https://auth.example.org';
  try {
    const doc = (await (await fetch(`${h.origin}/.well-known/oauth-authorization-server`)).json()) as Record<
      string,
      string
    >;
    assert.equal(doc.issuer, 'https://auth.example.org');
    assert.equal(doc.token_endpoint, 'https://auth.example.org/account/oauth2/v1/token');
  } finally {
    h.server.ctx.config.authUrl = null;
  }
});

/** A GET through node:http with a Host header of the test's choosing (fetch cannot set one). */
function getWithHost(url: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers: { host } });
    req.on('error', reject);
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.end();
  });
}

test('a Host header no URL parser accepts (port over 65535, broken IPv6) never gives a 5xx', async () => {
  const authorize = new URL('/account/oauth2/v1/auth', h.origin);
  // A request whose error goes to the redirect URI, with `iss` naming the issuer.
  for (const [k, v] of Object.entries({
    client_id: h.clients.C1.client.clientId,
    redirect_uri: 'https://app.example/cb',
    response_type: 'token',
    state: 's',
  }))
    authorize.searchParams.set(k, v);
  for (const host of ['app.example:99999', '[:::]']) {
    const meta = await getWithHost(`${h.origin}/.well-known/oauth-authorization-server`, host);
    assert.equal(meta.status, 200, `metadata with Host ${host}: ${meta.body}`);
    const doc = JSON.parse(meta.body) as Record<string, string>;
    assert.ok(doc.token_endpoint!.startsWith(doc.issuer!), JSON.stringify(doc));
    const auth = await getWithHost(authorize.href, host);
    assert.equal(auth.status, 303, `authorization with Host ${host}: ${auth.body}`);
  }
});
