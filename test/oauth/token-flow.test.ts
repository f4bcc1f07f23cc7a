// Happy paths end to end: discovery, the real authorization endpoint (sign-in and consent through
// the HTML forms), then the token, refresh, revocation and introspection endpoints, driven by
// oauth4webapi and openid-client as applications use them.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as oauth from 'oauth4webapi';
import * as client from 'openid-client';
import {
  Browser,
  discoverOverHttp,
  approveAuthorization,
  startHarness,
  type Harness,
} from '../support/browser.ts';

const insecure = { [oauth.allowInsecureRequests]: true };

describe('authorization code flow end to end', () => {
  let h: Harness;
  let as: oauth.AuthorizationServer;
  let browser: Browser;
  before(async () => {
    h = await startHarness();
    const issuer = new URL(h.origin);
    as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }),
    );
    browser = new Browser();
  });
  after(() => h.close());

  test('T1 confidential client C1 with oauth4webapi: code, tokens, refresh, revoke', async () => {
    const c1 = { client_id: h.clients.C1.client.clientId };
    const auth = oauth.ClientSecretBasic(h.clients.C1.secret!);
    const state = oauth.generateRandomState();
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams({
      client_id: c1.client_id,
      response_type: 'code',
      redirect_uri: 'https://app.example/cb',
      scope: 'telegram.list telegram.data',
      state,
    }).toString();
    const params = oauth.validateAuthResponse(
      as,
      c1,
      await approveAuthorization(browser, url.href, h.user),
      state,
    );
    const res = await oauth.authorizationCodeGrantRequest(
      as,
      c1,
      auth,
      params,
      'https://app.example/cb',
      oauth.nopkce,
      insecure,
    );
    const tokens = await oauth.processAuthorizationCodeResponse(as, c1, res);
    assert.equal(tokens.token_type, 'bearer');
    assert.equal(tokens.expires_in, 21600);
    assert.equal(tokens.scope, 'telegram.list telegram.data');

    const introspected = await oauth.processIntrospectionResponse(
      as,
      c1,
      await oauth.introspectionRequest(as, c1, auth, tokens.access_token, insecure),
    );
    assert.equal(introspected.active, true);
    assert.equal(introspected.sub, String(h.user.id));

    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      c1,
      await oauth.refreshTokenGrantRequest(as, c1, auth, tokens.refresh_token!, insecure),
    );
    assert.equal(refreshed.refresh_token, undefined);
    await oauth.processRevocationResponse(
      await oauth.revocationRequest(as, c1, auth, tokens.refresh_token!, insecure),
    );
    const again = await oauth.refreshTokenGrantRequest(as, c1, auth, tokens.refresh_token!, insecure);
    await assert.rejects(oauth.processRefreshTokenResponse(as, c1, again), (e: unknown) => {
      assert.ok(e instanceof oauth.ResponseBodyError);
      assert.equal(e.error, 'invalid_grant');
      return true;
    });
  });

  test('T1 public native client P1 with openid-client: S256, loopback port, DPoP with nonces and dpop_jkt', async () => {
    const config = await discoverOverHttp(h.origin, h.clients.P1.client.clientId, client.None());
    const keyPair = await client.randomDPoPKeyPair('ES256');
    const DPoP = client.getDPoPHandle(config, keyPair);
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const { calculateJwkThumbprint, exportJWK } = await import('jose');
    const jkt = await calculateJwkThumbprint(await exportJWK(keyPair.publicKey), 'sha256');
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: 'http://127.0.0.1:53682/callback',
      scope: 'telegram.list',
      state,
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      dpop_jkt: jkt,
    });
    const back = await approveAuthorization(browser, url.href, h.user);
    assert.equal(back.origin, 'http://127.0.0.1:53682');
    const tokens = await client.authorizationCodeGrant(
      config,
      back,
      { pkceCodeVerifier: verifier, expectedState: state },
      undefined,
      {
        DPoP,
      },
    );
    assert.equal(tokens.token_type, 'dpop');
    assert.match(tokens.refresh_token!, /^ARh\./);
    // The public client's refresh token is bound to the key: the same key refreshes.
    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!, undefined, { DPoP });
    assert.equal(refreshed.token_type, 'dpop');
    assert.equal(refreshed.refresh_token, undefined);
    await client.tokenRevocation(config, tokens.refresh_token!);
    await assert.rejects(client.refreshTokenGrant(config, tokens.refresh_token!, undefined, { DPoP }));
  });
});
