// Refresh token rotation (docs/oauth.md "Refresh token rotation"), cases RR1–RR9: the official SDK's
// refresh flow with rotation off and on, the per-client setting over the operator's default, reuse
// ending the authorization (and its WebSocket), concurrent refreshes, the absolute cap, DPoP binding
// and the cleanup of ended tokens.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DMDATA } from '@dmdata/sdk-js';
import * as oauth from 'oauth4webapi';
import { rotatesRefreshTokens } from '../../src/issuer/refresh-rotation.ts';
import { cleanUpTokens } from '../../src/oauth/token-cleanup.ts';
import { closeCodes } from '../../src/realtime/protocol.ts';
import {
  isActive,
  postAsClient,
  serverMeta,
  startAuthHarness,
  type AuthHarness,
  type TestClient,
} from '../support/oauth.ts';
import { waitFor } from '../support/wait.ts';

const insecure = { [oauth.allowInsecureRequests]: true };
const DAY = 86_400_000;
const ACCESS_TOKEN_LIFE_MS = 21_600_000;
const SCOPES = ['telegram.list', 'socket.start', 'telegram.get.earthquake'];

/** A fresh authorization of `client`: the tokens of its code's redemption. */
async function authorize(h: AuthHarness, client: TestClient) {
  const { code, verifier } = await h.code(client, { scopes: SCOPES });
  const r = await postAsClient(client, h.tokenUrl, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: client.client.redirectUris[0]!,
    ...(verifier ? { code_verifier: verifier } : {}),
  });
  assert.equal(r.status, 200, r.text);
  return { access: r.json!.access_token as string, refresh: r.json!.refresh_token as string };
}

const refresh = (h: AuthHarness, client: TestClient, refreshToken: string) =>
  postAsClient(client, h.tokenUrl, { grant_type: 'refresh_token', refresh_token: refreshToken });

/**
 * The credentials of the official SDK as its OAuth client (@dmdata/oauth2-client, `OAuth2Code`)
 * provides them: the access token until it expires, then a refresh with the refresh token it
 * holds, which it replaces when the answer carries a new one.
 */
class SdkOAuthCredentials {
  refreshes = 0;
  /** The token endpoint's answer to the last refused refresh. */
  refusal: Record<string, unknown> | null = null;
  private access: { value: string; expiresAt: number };

  constructor(
    private readonly h: AuthHarness,
    private readonly client: TestClient,
    tokens: { access: string; refresh: string },
  ) {
    this.refreshToken = tokens.refresh;
    this.access = { value: tokens.access, expiresAt: h.clock.now() + ACCESS_TOKEN_LIFE_MS };
  }

  refreshToken: string;

  getAuthorization = async (): Promise<string> => {
    if (this.access.expiresAt <= this.h.clock.now()) {
      const r = await refresh(this.h, this.client, this.refreshToken);
      if (r.status !== 200) {
        this.refusal = r.json;
        throw new Error(`refresh refused: ${r.text}`);
      }
      this.refreshes += 1;
      if (typeof r.json!.refresh_token === 'string') this.refreshToken = r.json!.refresh_token;
      const expiresIn = r.json!.expires_in as number;
      this.access = {
        value: r.json!.access_token as string,
        expiresAt: this.h.clock.now() + expiresIn * 1000,
      };
    }
    return `Bearer ${this.access.value}`;
  };
}

function sdkFor(h: AuthHarness, credentials: SdkOAuthCredentials): DMDATA {
  const base = `${h.origin}/v2`;
  return new DMDATA({
    credentials: { getAuthorization: credentials.getAuthorization },
    endpoints: {
      contract: `${base}/contract`,
      socket: `${base}/socket`,
      telegram: `${base}/telegram`,
      'telegram/body': `${h.origin}/v1`,
      parameter: `${base}/parameter`,
      'gd/earthquake': `${base}/gd/earthquake`,
      'gd/eew': `${base}/gd/eew`,
    },
  });
}

/** Three access-token lives, each ended by moving the clock, each followed by an SDK call. */
async function threeRefreshCycles(h: AuthHarness, sdk: DMDATA, credentials: SdkOAuthCredentials) {
  const seen = [credentials.refreshToken];
  for (let i = 0; i < 3; i++) {
    h.clock.advance(ACCESS_TOKEN_LIFE_MS + 1000);
    const res = await sdk.telegram.list({ limit: 1 });
    assert.equal(res.status, 200);
    seen.push(credentials.refreshToken);
  }
  assert.equal(credentials.refreshes, 3);
  return seen;
}

// Pings every hour: only a revocation can close a socket while the clock moves.
const quiet = { pingIntervalMs: 3_600_000 };

describe('refresh token rotation off (the operator default)', () => {
  let h: AuthHarness;
  before(async () => {
    h = await startAuthHarness(quiet);
  });
  after(() => h.close());

  test('RR1 the official SDK refreshes with the same refresh token again and again', async () => {
    const client = await h.addClient({
      type: 'public',
      grants: ['authorization_code', 'refresh_token'],
      scopes: SCOPES,
      redirectUris: ['http://127.0.0.1/callback'],
    });
    const credentials = new SdkOAuthCredentials(h, client, await authorize(h, client));
    const seen = await threeRefreshCycles(h, sdkFor(h, credentials), credentials);
    assert.equal(new Set(seen).size, 1, 'no new refresh token was ever returned');
    const again = await refresh(h, client, seen[0]!);
    assert.equal(again.status, 200);
    assert.equal('refresh_token' in again.json!, false);
  });

  test('RR2 a client set to on rotates: the old token is refused, and its reuse ends the authorization', async () => {
    const client = await h.addClient({
      type: 'confidential',
      grants: ['authorization_code', 'refresh_token'],
      refreshRotation: 'on',
    });
    const first = await authorize(h, client);
    const r1 = await refresh(h, client, first.refresh);
    assert.equal(r1.status, 200, r1.text);
    const second = r1.json!.refresh_token as string;
    assert.match(second, /^ARh\./);
    assert.notEqual(second, first.refresh);
    const r2 = await refresh(h, client, second);
    assert.equal(r2.status, 200);
    const third = r2.json!.refresh_token as string;
    assert.ok(![first.refresh, second].includes(third));

    // Another client presenting an ended token changes nothing.
    const foreign = await refresh(h, h.C2, first.refresh);
    assert.equal(foreign.json!.error, 'invalid_grant');
    assert.ok(await isActive(h, r2.json!.access_token as string));

    const reuse = await refresh(h, client, first.refresh);
    assert.equal(reuse.status, 400);
    assert.equal(reuse.json!.error, 'invalid_grant');
    // The whole authorization is gone: the newest refresh token and every access token of it.
    assert.equal((await refresh(h, client, third)).json!.error, 'invalid_grant');
    for (const token of [first.access, r1.json!.access_token, r2.json!.access_token])
      assert.equal(await isActive(h, token as string), false);
  });

  test('RR3 two refreshes racing with one token: one wins, the other is a reuse', async () => {
    const client = await h.addClient({
      type: 'public',
      grants: ['authorization_code', 'refresh_token'],
      refreshRotation: 'on',
      redirectUris: ['http://127.0.0.1/callback'],
    });
    const tokens = await authorize(h, client);
    const answers = await Promise.all([
      refresh(h, client, tokens.refresh),
      refresh(h, client, tokens.refresh),
    ]);
    assert.deepEqual(answers.map((a) => a.status).sort(), [200, 400]);
    const winner = answers.find((a) => a.status === 200)!;
    const loser = answers.find((a) => a.status === 400)!;
    assert.equal(loser.json!.error, 'invalid_grant');
    // The loser was a reuse: the winner's new refresh token went with the authorization.
    assert.equal(
      (await refresh(h, client, winner.json!.refresh_token as string)).json!.error,
      'invalid_grant',
    );
    assert.equal(await isActive(h, winner.json!.access_token as string), false);
  });

  test('RR4 the absolute cap counts from the authorization, whatever the rotations', async () => {
    const client = await h.addClient({
      type: 'confidential',
      grants: ['authorization_code', 'refresh_token'],
      refreshRotation: 'on',
    });
    let current = (await authorize(h, client)).refresh;
    for (let i = 0; i < 6; i++) {
      h.clock.advance(182 * DAY);
      const r = await refresh(h, client, current);
      assert.equal(r.status, 200, `use ${i + 1}: ${r.text}`);
      current = r.json!.refresh_token as string;
    }
    h.clock.advance(182 * DAY);
    assert.equal((await refresh(h, client, current)).json!.error, 'invalid_grant');
  });

  test('RR5 a rotated public refresh token stays bound to the DPoP key of the authorization', async () => {
    const client = await h.addClient({
      type: 'public',
      grants: ['authorization_code', 'refresh_token'],
      refreshRotation: 'on',
      redirectUris: ['http://127.0.0.1/callback'],
    });
    const as = serverMeta(h);
    const pclient = { client_id: client.id, token_endpoint_auth_method: 'none' };
    // The library signs with the real clock; tell it how far the tests have moved the server's.
    const skew = { [oauth.clockSkew]: Math.round((h.clock.now() - Date.now()) / 1000) };
    const DPoP = oauth.DPoP(skew, await oauth.generateKeyPair('ES256'));
    const { code, verifier } = await h.code(client);
    const params = oauth.validateAuthResponse(
      as,
      pclient,
      new URL(`http://127.0.0.1/callback?code=${code}&state=s`),
      's',
    );
    const issued = await oauth.processAuthorizationCodeResponse(
      as,
      pclient,
      await oauth.authorizationCodeGrantRequest(
        as,
        pclient,
        oauth.None(),
        params,
        'http://127.0.0.1/callback',
        verifier!,
        { ...insecure, DPoP },
      ),
    );
    const rotated = await oauth.processRefreshTokenResponse(
      as,
      pclient,
      await oauth.refreshTokenGrantRequest(as, pclient, oauth.None(), issued.refresh_token!, {
        ...insecure,
        DPoP,
      }),
    );
    assert.equal(rotated.token_type, 'dpop');
    assert.ok(rotated.refresh_token && rotated.refresh_token !== issued.refresh_token);
    // Without the key the new refresh token is refused, and it is not spent by that attempt.
    assert.equal((await refresh(h, client, rotated.refresh_token)).json!.error, 'invalid_grant');
    const withKey = await oauth.processRefreshTokenResponse(
      as,
      pclient,
      await oauth.refreshTokenGrantRequest(as, pclient, oauth.None(), rotated.refresh_token, {
        ...insecure,
        DPoP,
      }),
    );
    assert.match(withKey.refresh_token!, /^ARh\./);
  });

  test('RR6 ended tokens are forgotten once past the expiry they had', async () => {
    const client = await h.addClient({
      type: 'confidential',
      grants: ['authorization_code', 'refresh_token'],
      refreshRotation: 'on',
    });
    const { refresh: first } = await authorize(h, client);
    const r = await refresh(h, client, first);
    assert.equal(r.status, 200);
    const ended = async () =>
      (
        await h.server.ctx.db.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM oauth_rotated_tokens WHERE client_id = $1',
          [client.id],
        )
      )[0]!.n;
    assert.equal(await ended(), 1);
    await cleanUpTokens(h.server.ctx);
    assert.equal(await ended(), 1, 'nothing is pruned before its expiry');
    h.clock.advance(184 * DAY);
    await cleanUpTokens(h.server.ctx);
    assert.equal(await ended(), 0);
  });
});

describe('refresh token rotation for public clients (NAMAZU_REFRESH_ROTATION=public)', () => {
  let h: AuthHarness;
  before(async () => {
    h = await startAuthHarness({ ...quiet, refreshRotation: 'public' });
  });
  after(() => h.close());

  test('RR7 the official SDK keeps the new refresh token; reuse of an old one revokes the authorization and closes its WebSocket', async () => {
    const client = await h.addClient({
      type: 'public',
      grants: ['authorization_code', 'refresh_token'],
      scopes: SCOPES,
      redirectUris: ['http://127.0.0.1/callback'],
    });
    const credentials = new SdkOAuthCredentials(h, client, await authorize(h, client));
    const sdk = sdkFor(h, credentials);
    const seen = await threeRefreshCycles(h, sdk, credentials);
    assert.equal(new Set(seen).size, 4, 'a new refresh token at each refresh');

    const socket = await sdk.socket.start({ classifications: ['telegram.earthquake'] });
    let closeCode: number | null = null;
    socket.on('close', (code) => (closeCode = code));
    // The session is open once the server says so (its ticket used).
    await new Promise((resolve) => socket.once('start', resolve));
    const reuse = await refresh(h, client, seen[1]!);
    assert.equal(reuse.status, 400);
    assert.equal(reuse.json!.error, 'invalid_grant');
    assert.equal(
      await waitFor(() => closeCode, { message: 'the WebSocket to close' }),
      closeCodes.closedByAccount,
    );
    // The SDK's own refresh token went with the authorization: its next refresh is refused.
    h.clock.advance(ACCESS_TOKEN_LIFE_MS + 1000);
    // (The SDK reports a failure of its credentials as an error of its own.)
    await assert.rejects(sdk.telegram.list({ limit: 1 }));
    assert.equal(credentials.refusal?.error, 'invalid_grant');
  });

  test('RR8 the default covers public clients only, and a client\'s own "off" wins', async () => {
    const confidential = await authorize(h, h.C1);
    const c = await refresh(h, h.C1, confidential.refresh);
    assert.equal(c.status, 200);
    assert.equal('refresh_token' in c.json!, false);
    assert.equal((await refresh(h, h.C1, confidential.refresh)).status, 200);

    const pinned = await h.addClient({
      type: 'public',
      grants: ['authorization_code', 'refresh_token'],
      refreshRotation: 'off',
      redirectUris: ['http://127.0.0.1/callback'],
    });
    const tokens = await authorize(h, pinned);
    for (let i = 0; i < 2; i++) {
      const r = await refresh(h, pinned, tokens.refresh);
      assert.equal(r.status, 200);
      assert.equal('refresh_token' in r.json!, false);
    }
  });
});

test('RR9 which clients rotate: their own setting, else the operator default for their type', () => {
  const cases = [
    ['default', 'off', false, false],
    ['default', 'public', true, false],
    ['default', 'all', true, true],
    ['on', 'off', true, true],
    ['off', 'all', false, false],
  ] as const;
  for (const [own, operator, publicRotates, confidentialRotates] of cases) {
    const label = `${own} under ${operator}`;
    assert.equal(
      rotatesRefreshTokens({ type: 'public', refreshRotation: own }, operator),
      publicRotates,
      label,
    );
    assert.equal(
      rotatesRefreshTokens({ type: 'confidential', refreshRotation: own }, operator),
      confidentialRotates,
      label,
    );
  }
});
