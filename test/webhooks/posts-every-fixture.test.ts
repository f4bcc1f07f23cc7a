// Every shared XML fixture, in both languages and every format: no exception, every post within its
// service's limits, valid JSON, ntfy's headers in ASCII, training and test telegrams marked.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { allRestXmlFixtures, allXmlFixtures } from '../support/fixtures.ts';
import { DISCORD_LIMITS } from '../../src/webhooks/formats/discord.ts';
import { MISSKEY_LIMITS } from '../../src/webhooks/formats/misskey.ts';
import { NTFY_LIMITS } from '../../src/webhooks/formats/ntfy.ts';
import { SLACK_LIMITS } from '../../src/webhooks/formats/slack.ts';
import { postFormats, renderPost, type RenderedPost } from '../../src/webhooks/render.ts';
import type { TelegramSummary } from '../../src/webhooks/summary.ts';
import { decodeEncodedWords, summaryOfXml } from './posts-support.ts';

const MARKS = {
  ja: { 訓練: '【訓練】', 試験: '【試験】' },
  en: { 訓練: '[TRAINING] ', 試験: '[TEST] ' },
} as const;

/** Whole characters only: no surrogate left without its pair by a cut. */
const wellFormed = (text: string) =>
  !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text);

function checkDiscord(post: RenderedPost, mark: string | null, where: string) {
  const body = JSON.parse(post.body as string);
  const embed = body.embeds[0];
  const fields: { name: string; value: string }[] = embed.fields ?? [];
  assert.ok(body.content.length <= DISCORD_LIMITS.content, where);
  assert.ok(embed.title.length <= DISCORD_LIMITS.title, where);
  assert.ok((embed.description ?? '').length <= DISCORD_LIMITS.description, where);
  assert.ok(fields.length <= DISCORD_LIMITS.fields, where);
  for (const f of fields) {
    assert.ok(f.name.length > 0 && f.name.length <= DISCORD_LIMITS.fieldName, where);
    assert.ok(f.value.length > 0 && f.value.length <= DISCORD_LIMITS.fieldValue, where);
  }
  const total =
    embed.title.length +
    (embed.description ?? '').length +
    embed.footer.text.length +
    fields.reduce((n, f) => n + f.name.length + f.value.length, 0);
  assert.ok(total <= DISCORD_LIMITS.total, `${where}: embed total ${total}`);
  assert.deepEqual(body.allowed_mentions, { parse: [] });
  if (mark) assert.ok(body.content.startsWith(mark) && embed.title.startsWith(mark), where);
}

function checkSlack(post: RenderedPost, mark: string | null, where: string) {
  const body = JSON.parse(post.body as string);
  assert.ok(body.text.length > 0 && body.text.length <= SLACK_LIMITS.text, where);
  assert.ok(body.blocks.length <= SLACK_LIMITS.blocks, where);
  for (const block of body.blocks) {
    if (block.type === 'header') assert.ok(block.text.text.length <= SLACK_LIMITS.header, where);
    if (block.type === 'section' && block.text)
      assert.ok(block.text.text.length <= SLACK_LIMITS.section, where);
    if (block.type === 'section' && block.fields) {
      assert.ok(block.fields.length <= SLACK_LIMITS.fieldsPerSection, where);
      for (const f of block.fields) assert.ok(f.text.length <= SLACK_LIMITS.field, where);
    }
    if (block.type === 'context') assert.ok(block.elements[0].text.length <= SLACK_LIMITS.context, where);
  }
  if (mark) assert.ok(body.text.startsWith(mark) && body.blocks[0].text.text.startsWith(mark), where);
}

function checkNtfy(post: RenderedPost, mark: string | null, where: string) {
  for (const [name, value] of Object.entries(post.headers)) {
    assert.match(value, /^[\x20-\x7e]*$/, `${where}: header ${name}`);
  }
  assert.ok(['urgent', 'high', 'default', 'low'].includes(post.headers.priority!), where);
  assert.ok(Buffer.byteLength(post.body) <= NTFY_LIMITS.body, where);
  const title = decodeEncodedWords(post.headers.title!);
  assert.ok(title.length > 0 && title.length <= NTFY_LIMITS.title && wellFormed(title), where);
  for (const word of post.headers.title!.split(' ')) assert.ok(word.length <= 75, `${where}: RFC 2047 word`);
  if (mark) assert.ok(title.startsWith(mark) && (post.body as string).startsWith(mark), where);
}

function checkMisskey(post: RenderedPost, mark: string | null, where: string) {
  const body = JSON.parse(post.body as string);
  assert.equal(body.i, 'token-of-the-subscription');
  assert.ok(body.text.length > 0 && body.text.length <= MISSKEY_LIMITS.text, where);
  assert.ok(!body.text.includes('@'), where);
  if (mark) assert.ok(body.text.startsWith(mark), where);
}

const checks = { discord: checkDiscord, slack: checkSlack, ntfy: checkNtfy, misskey: checkMisskey };

function checkEveryPost(summary: TelegramSummary, status: string, where: string) {
  for (const lang of ['ja', 'en'] as const) {
    const mark = status === '訓練' || status === '試験' ? MARKS[lang][status] : null;
    for (const format of postFormats) {
      const post = renderPost(format, summary, lang, { misskey: { token: 'token-of-the-subscription' } });
      assert.ok(wellFormed(post.body as string), `${where} ${format} ${lang}`);
      checks[format](post, mark, `${where} ${format} ${lang}`);
    }
  }
}

test('every fixture gives posts within every service limit, marked when training or test', () => {
  let summarised = 0;
  for (const path of [...allXmlFixtures(), ...allRestXmlFixtures()]) {
    const xml = readFileSync(path);
    const status = /<Status>([^<]*)<\/Status>/.exec(xml.toString('utf8'))?.[1] ?? '';
    const summary = summaryOfXml(xml, path.split('/').pop());
    assert.ok(summary, path);
    assert.equal(summary.mark !== null, status === '訓練' || status === '試験', path);
    checkEveryPost(summary, status, path);
    summarised++;
  }
  assert.ok(summarised > 600, `${summarised} fixtures`);
});
