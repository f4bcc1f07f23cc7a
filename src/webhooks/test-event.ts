/**
 * The test event of `POST /v2/webhook/:id/test` (docs/webhooks.md): sent at once to the
 * subscription, signed like a delivery, and recorded with its outcome (not redelivered).
 */
import { randomBytes } from 'node:crypto';
import type { Db } from '../db/types.ts';
import type { SecretBox } from '../security/sealed.ts';
import { recordTestEvent, type AttemptOutcome } from './deliveries.ts';
import { misskeyOptions, type MisskeyOptions } from './formats/misskey.ts';
import { isPostFormat } from './payload.ts';
import { renderPost } from './render.ts';
import type { Sender } from './sender.ts';
import { signedHeaders, signingKey } from './signing.ts';
import { secretsOf, type Subscription } from './subscriptions.ts';

export interface TestOutcome {
  deliveryId: number;
  messageId: string;
  outcome: AttemptOutcome;
}

/** Sends a test event to the subscription now and records it; null when it was deleted meanwhile. */
export async function sendTestEvent(
  db: Db,
  box: SecretBox,
  sender: Sender,
  subscription: Subscription,
): Promise<TestOutcome | null> {
  const messageId = `msg_test_${randomBytes(12).toString('base64url')}`;
  const secrets = await secretsOf(db, box, subscription.id);
  let outcome: AttemptOutcome;
  if (!secrets?.secret) {
    outcome = {
      ok: false,
      status: null,
      error: 'secret unreadable (NAMAZU_SECRET changed)',
      durationMs: 0,
      retryAfterMs: null,
    };
  } else {
    const now = new Date();
    const post = testBody(subscription, messageId, now, misskeyOptions(secrets.token, subscription));
    const body = Buffer.from(post.body);
    const headers = {
      ...post.headers,
      'user-agent': 'Namazu-Webhooks/1',
      ...signedHeaders(
        [secrets.secret, secrets.previousSecret].flatMap((s) => (s === null ? [] : [signingKey(s)])),
        messageId,
        body,
        now,
      ),
    };
    outcome = await sender.send({ url: subscription.url, headers, body });
  }
  const deliveryId = await recordTestEvent(db, subscription.id, messageId, outcome);
  return deliveryId === null ? null : { deliveryId, messageId, outcome };
}

/** The body of a test event: the `data` format names it plainly, a ready-made post is marked as a test. */
function testBody(
  subscription: Subscription,
  messageId: string,
  now: Date,
  misskey: MisskeyOptions | null,
): { headers: Record<string, string>; body: string } {
  if (!isPostFormat(subscription.format)) {
    const body = {
      type: 'webhook.test',
      version: '2.0',
      id: messageId,
      webhook: subscription.id,
      time: now.toISOString(),
    };
    return { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
  }
  const summary = {
    type: 'TEST',
    category: 'other' as const,
    title: subscription.lang === 'ja' ? 'Namazu webhook のテスト' : 'Namazu webhook test',
    mark: 'test' as const,
    infoType: '発表',
    severity: 'low' as const,
    reportTime: now.toISOString(),
    eventId: null,
    headline:
      subscription.lang === 'ja' ? 'これは webhook のテスト送信です。' : 'This is a test of the webhook.',
    text: null,
    facts: { kind: 'plain' as const },
  };
  return renderPost(subscription.format, summary, subscription.lang, misskey === null ? {} : { misskey });
}
