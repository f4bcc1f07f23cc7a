/**
 * The test event of `POST /v2/webhook/:id/test` (docs/webhooks.md "Testing with a telegram"): sent at once to the
 * subscription, signed like a delivery, and recorded with its outcome (not redelivered). With a
 * stored telegram, the test carries what that telegram's delivery would post, marked as a test.
 */
import { randomBytes } from 'node:crypto';
import { contractedClassifications } from '../accounts/contracts.ts';
import type { Db, Queryable } from '../db/types.ts';
import type { SecretBox } from '../security/sealed.ts';
import { TELEGRAM_ID_PATTERN } from '../telegrams/resume-point.ts';
import type { TelegramRecord } from '../telegrams/record.ts';
import { loadConversionOf, loadTelegram, loadTelegramById } from '../telegrams/store.ts';
import { recordTestEvent, type AttemptOutcome } from './deliveries.ts';
import { deliveryMessage, documentOf, isPostFormat } from './payload.ts';
import { renderOptionsOf, renderPost, type RenderOptions } from './render.ts';
import { requestHeaders, type PostSender } from './sender.ts';
import { signedHeaders, signingKey } from './signing.ts';
import { secretsOf, type Subscription } from './subscriptions.ts';
import { markedAsTest, summarize } from './summary.ts';
import type { TelegramSummary } from './types.ts';

const TELEGRAM_ID = new RegExp(TELEGRAM_ID_PATTERN);

/**
 * The stored telegram a test of the subscription may carry: one of its classifications that the
 * account has a contract for; null otherwise, as for an id that names none.
 */
export async function telegramForTest(
  q: Queryable,
  subscription: Subscription,
  telegramId: string,
): Promise<TelegramRecord | null> {
  if (!TELEGRAM_ID.test(telegramId)) return null;
  const given = await loadTelegramById(q, telegramId);
  if (!given || !subscription.filter.classifications.includes(given.classification)) return null;
  const contracted = await contractedClassifications(q, subscription.accountId);
  return contracted.has(given.classification) ? inMode(q, given, subscription.filter.formatMode) : null;
}

/**
 * The telegram as the webhook's mode delivers it: the JSON mode an XML telegram's conversion, the raw
 * mode a conversion's XML telegram (either id may be given); itself when it has no other form.
 */
async function inMode(
  q: Queryable,
  given: TelegramRecord,
  mode: Subscription['filter']['formatMode'],
): Promise<TelegramRecord> {
  if (mode === 'json' && given.format === 'xml') {
    const conversion = await loadConversionOf(q, given.id);
    return (conversion && (await loadTelegram(q, conversion.serial))) ?? given;
  }
  if (mode === 'raw' && given.conversion)
    return (await loadTelegramById(q, given.conversion.originalId)) ?? given;
  return given;
}

/** A stored telegram a test carries, read for its post: its conversion's document and its `data` message. */
export interface TestTelegram {
  record: TelegramRecord;
  document: unknown | null;
  message: Buffer;
}

/** What a test of `record` posts, as this process (`serverName`) would deliver it. */
export async function testTelegram(
  q: Queryable,
  record: TelegramRecord,
  serverName: string,
): Promise<TestTelegram> {
  const message = deliveryMessage(record, serverName);
  return { record, document: await documentOf(q, record), message };
}

export interface TestOutcome {
  deliveryId: number;
  messageId: string;
  outcome: AttemptOutcome;
}

/**
 * Sends a test event to the subscription now (carrying `telegram`'s post when given; with
 * `withMention`, its Discord or Slack mention, which a test otherwise never carries) and records it;
 * null when it was deleted meanwhile.
 */
export async function sendTestEvent(
  db: Db,
  box: SecretBox,
  sender: PostSender,
  subscription: Subscription,
  telegram: TestTelegram | null = null,
  withMention = false,
): Promise<TestOutcome | null> {
  const messageId = `msg_test_${randomBytes(12).toString('base64url')}`;
  const secrets = await secretsOf(db, box, subscription.id);
  let outcome: AttemptOutcome;
  if (!secrets?.secret || !secrets.headers) {
    outcome = {
      ok: false,
      status: null,
      error: 'secret unreadable (NAMAZU_SECRET changed)',
      durationMs: 0,
      retryAfterMs: null,
    };
  } else {
    const now = new Date();
    const options = renderOptionsOf(secrets.token, subscription);
    if (withMention && options.mention) options.mention.always = true;
    const post = testBody(subscription, messageId, now, options, telegram);
    const body = Buffer.from(post.body);
    const headers = requestHeaders(
      secrets.headers,
      post.headers,
      signedHeaders(
        [secrets.secret, secrets.previousSecret].flatMap((s) => (s === null ? [] : [signingKey(s)])),
        messageId,
        body,
        now,
      ),
    );
    outcome = await sender.send({ url: subscription.url, headers, body });
  }
  const deliveryId = await recordTestEvent(db, subscription.id, messageId, outcome);
  return deliveryId === null ? null : { deliveryId, messageId, outcome };
}

/**
 * The body of a test event: the `data` format names it plainly (and holds the telegram's `data`
 * message under `telegram`), a ready-made post is marked as a test (the telegram's post, or a line
 * saying it is a test).
 */
function testBody(
  subscription: Subscription,
  messageId: string,
  now: Date,
  options: RenderOptions,
  telegram: TestTelegram | null,
): { headers: Record<string, string>; body: string } {
  if (!isPostFormat(subscription.format)) {
    const body = {
      type: 'webhook.test',
      version: '2.0',
      id: messageId,
      webhook: subscription.id,
      time: now.toISOString(),
      ...(telegram ? { telegram: JSON.parse(telegram.message.toString('utf8')) as unknown } : {}),
    };
    return { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
  }
  const told = telegram && summarize(telegram.record, telegram.document);
  const summary = told ? markedAsTest(told) : plainTest(subscription.lang, now);
  // Marked as a test, its severity is never high enough for the subscription's mention to ping:
  // only a test asked to carry it does.
  return renderPost(subscription.format, summary, subscription.lang, options);
}

/** The test event's own post: a line saying it is a test. */
function plainTest(lang: 'ja' | 'en', now: Date): TelegramSummary {
  return {
    type: 'TEST',
    category: 'other',
    title: lang === 'ja' ? 'Namazu webhook のテスト' : 'Namazu webhook test',
    mark: 'test',
    infoType: '発表',
    severity: 'low',
    reportTime: now.toISOString(),
    eventId: null,
    headline: lang === 'ja' ? 'これは webhook のテスト送信です。' : 'This is a test of the webhook.',
    text: null,
    facts: { kind: 'plain' },
  };
}
