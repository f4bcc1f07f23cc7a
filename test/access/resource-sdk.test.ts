// Case RS8 (docs/oauth.md "Resource server"): the official JS SDK (@dmdata/sdk-js) with a
// DPoP-bound access token honours the data API's nonce challenge with its single automatic retry,
// then reuses the nonce.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DMDATA } from '@dmdata/sdk-js';
import * as oauth from 'oauth4webapi';
import { makeProof, proofKey, type ProofKey } from '../support/dpop.ts';
import { serverMeta, startAuthHarness, type AuthHarness } from '../support/oauth.ts';

const insecure = { [oauth.allowInsecureRequests]: true };

describe('official SDK with a DPoP-bound token', () => {
  let h: AuthHarness;
  let key: ProofKey;
  let token: string;
  before(async () => {
    h = await startAuthHarness({ dpopNonce: true });
    key = await proofKey('ES256');
    // The token, bound to `key`, through the token endpoint's own nonce challenge.
    const as = serverMeta(h);
    const cc = { client_id: h.CC.id };
    const skew = { [oauth.clockSkew]: Math.round((h.clock.now() - Date.now()) / 1000) };
    const DPoP = oauth.DPoP(skew, key.keyPair);
    const call = () =>
      oauth.clientCredentialsGrantRequest(
        as,
        cc,
        oauth.ClientSecretBasic(h.CC.secret!),
        { scope: 'telegram.list contract.list' },
        { ...insecure, DPoP },
      );
    try {
      token = (await oauth.processClientCredentialsResponse(as, cc, await call())).access_token;
    } catch (err) {
      assert.ok(oauth.isDPoPNonceError(err));
      token = (await oauth.processClientCredentialsResponse(as, cc, await call())).access_token;
    }
  });
  after(() => h.close());

  test('RS8 the SDK retries once with the nonce from the 401, then keeps using it', async () => {
    const proofs: Array<{ method: string; uri: string; nonce: string | null | undefined }> = [];
    const sdk = new DMDATA({
      credentials: {
        getAuthorization: async () => `DPoP ${token}`,
        getDPoPProofJWT: async (method: string, uri: string, nonce?: string | null) => {
          proofs.push({ method, uri, nonce });
          return makeProof(key, {
            htm: method,
            htu: uri,
            iat: Math.floor(h.clock.now() / 1000),
            accessToken: token,
            ...(nonce ? { nonce } : {}),
          });
        },
      },
      endpoints: {
        contract: `${h.origin}/v2/contract`,
        socket: `${h.origin}/v2/socket`,
        telegram: `${h.origin}/v2/telegram`,
        'telegram/body': `${h.origin}/v1`,
        parameter: `${h.origin}/v2/parameter`,
        'gd/earthquake': `${h.origin}/v2/gd/earthquake`,
        'gd/eew': `${h.origin}/v2/gd/eew`,
      },
    });
    const res = await sdk.telegram.list({ limit: 5 });
    assert.equal(res.status, 200);
    assert.equal(res.data.status, 'ok');
    assert.equal(proofs.length, 2, 'one refused attempt and one retry');
    assert.equal(proofs[0]!.nonce, undefined);
    assert.equal(typeof proofs[1]!.nonce, 'string');

    const contracts = await sdk.contract.list();
    assert.equal(contracts.status, 200);
    assert.equal(proofs.length, 3, 'the nonce is reused without a new challenge');
    assert.equal(proofs[2]!.nonce, proofs[1]!.nonce);
  });
});
