// The signatures of webhook attempts: Node's HMAC gives byte for byte what the `standardwebhooks`
// package signs, and the package's verify accepts them, for bodies of every kind of character.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { newSigningSecret } from '../../src/webhooks/subscriptions.ts';
import { signedHeaders, signingKey } from '../../src/webhooks/signing.ts';

test('signatures are those of the standardwebhooks package, and its verify accepts them', () => {
  fc.assert(
    fc.property(
      fc.string({ unit: 'grapheme', maxLength: 2000 }),
      fc.stringMatching(/^msg_[A-Za-z0-9_]{1,40}$/),
      (text, messageId) => {
        const secret = newSigningSecret();
        const body = Buffer.from(JSON.stringify({ text }));
        const at = new Date();
        const headers = signedHeaders([signingKey(secret)], messageId, body, at);
        const wh = new Webhook(secret);
        assert.equal(headers['webhook-signature'], wh.sign(messageId, at, body));
        assert.equal(headers['webhook-id'], messageId);
        assert.deepEqual(wh.verify(body, headers), { text });
        // Another secret's signature is refused.
        assert.throws(() => new Webhook(newSigningSecret()).verify(body, headers));
      },
    ),
    { numRuns: 200 },
  );
});

test('during a rotation each secret, the new and the one it replaced, verifies alone; a third does not', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'grapheme', maxLength: 500 }), (text) => {
      const [current, previous] = [newSigningSecret(), newSigningSecret()];
      const body = Buffer.from(JSON.stringify({ text }));
      const at = new Date();
      const headers = signedHeaders([signingKey(current), signingKey(previous)], 'msg_1_2', body, at);
      const signatures = headers['webhook-signature']!.split(' ');
      assert.deepEqual(signatures, [
        new Webhook(current).sign('msg_1_2', at, body),
        new Webhook(previous).sign('msg_1_2', at, body),
      ]);
      assert.deepEqual(new Webhook(current).verify(body, headers), { text });
      assert.deepEqual(new Webhook(previous).verify(body, headers), { text });
      assert.throws(() => new Webhook(newSigningSecret()).verify(body, headers));
    }),
    { numRuns: 100 },
  );
});
