// Cutting to the services' limits: a summary far larger than any limit still gives posts within
// them, cut on whole characters (emoji are surrogate pairs in UTF-16).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clip, clipBytes } from '../../src/webhooks/clip.ts';
import { headerText } from '../../src/webhooks/formats/ntfy.ts';
import { renderPost } from '../../src/webhooks/render.ts';
import { MissingTokenError } from '../../src/webhooks/render.ts';
import type { TelegramSummary } from '../../src/webhooks/summary.ts';
import { decodeEncodedWords } from './posts-support.ts';

const EMOJI = '🌊'; // two UTF-16 code units, four UTF-8 bytes

test('clip keeps what fits and never splits a surrogate pair', () => {
  assert.equal(clip('abc', 3), 'abc');
  assert.equal(clip('abcdef', 4), 'abc…');
  // 'a' + emoji + 'b' is 4 code units; at 3 the emoji would be cut after its high surrogate.
  assert.equal(clip(`a${EMOJI}b`, 3), 'a…');
  assert.equal(clip(`ab${EMOJI}`, 3), 'ab…');
  assert.equal(clipBytes(`${EMOJI}${EMOJI}`, 8), `${EMOJI}${EMOJI}`);
  assert.equal(clipBytes(`${EMOJI}${EMOJI}x`, 8), `${EMOJI}…`);
  assert.ok(Buffer.byteLength(clipBytes('あ'.repeat(5000), 4096)) <= 4096);
});

test('ntfy header values: ASCII as it is, anything else as RFC 2047 words of at most 75 characters', () => {
  assert.equal(headerText('EEW warning #2'), 'EEW warning #2');
  assert.equal(headerText('a\r\nb'), 'a b');
  assert.equal(headerText('津波'), `=?UTF-8?B?${Buffer.from('津波').toString('base64')}?=`);
  const long = `【訓練】${'緊急地震速報'.repeat(20)}${EMOJI}`;
  const encoded = headerText(long);
  assert.match(encoded, /^[\x20-\x7e]+$/);
  for (const word of encoded.split(' ')) assert.ok(word.length <= 75, word);
  assert.equal(decodeEncodedWords(encoded), long);
});

const huge: TelegramSummary = {
  type: 'VTSE41',
  category: 'tsunami',
  title: `${EMOJI}津波警報`.repeat(200),
  mark: 'training',
  infoType: '発表',
  severity: 'urgent',
  reportTime: '2024-01-01T16:22:00+09:00',
  eventId: '20240101161000',
  headline: `ただちに避難してください。${EMOJI}`.repeat(2000),
  text: null,
  facts: {
    kind: 'tsunami',
    classes: Array.from({ length: 60 }, (_, i) => ({
      name: `${EMOJI}区分${i}`.repeat(100),
      code: '51',
      areas: Array.from({ length: 400 }, (_, j) => `地域${EMOJI}${j}`),
    })),
  },
};

test('a summary beyond every limit gives posts within them, cut on whole characters', () => {
  const wellFormed = (text: string) =>
    !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text);
  const discord = JSON.parse(renderPost('discord', huge, 'ja').body as string);
  const embed = discord.embeds[0];
  assert.ok(discord.content.length <= 2000 && discord.content.startsWith('【訓練】'));
  assert.ok(embed.title.length <= 256 && embed.description.length <= 4096 && embed.fields.length <= 25);
  const total =
    embed.title.length +
    embed.description.length +
    embed.footer.text.length +
    embed.fields.reduce(
      (n: number, f: { name: string; value: string }) => n + f.name.length + f.value.length,
      0,
    );
  assert.ok(total <= 6000, `total ${total}`);
  for (const f of embed.fields) assert.ok(f.name.length <= 256 && f.value.length <= 1024);

  const slack = JSON.parse(renderPost('slack', huge, 'en').body as string);
  assert.ok(slack.blocks.length <= 50 && slack.text.length <= 3000);
  assert.ok(slack.blocks[0].text.text.length <= 150 && slack.blocks[0].text.text.startsWith('[TRAINING] '));
  for (const block of slack.blocks.filter((b: { fields?: unknown[] }) => b.fields)) {
    assert.ok(block.fields.length <= 10);
    for (const f of block.fields) assert.ok(f.text.length <= 2000);
  }
  assert.ok(slack.blocks[1].text.text.length <= 3000);

  const ntfy = renderPost('ntfy', huge, 'ja');
  assert.ok(Buffer.byteLength(ntfy.body) <= 4096);
  assert.equal(ntfy.headers.priority, 'urgent', 'the summary given is urgent; rendering keeps its severity');

  const misskey = JSON.parse(renderPost('misskey', huge, 'ja', { misskey: { token: 't' } }).body as string);
  assert.ok(misskey.text.length <= 3000);

  // The title (1,206 code units) fits whole in Discord's content and Slack's text.
  assert.ok(wellFormed(discord.content) && wellFormed(slack.text));
  for (const text of [embed.title, embed.description, slack.blocks[0].text.text, ntfy.body, misskey.text]) {
    assert.ok(wellFormed(text));
    assert.ok(text.endsWith('…'), text.slice(-40));
  }
});

test('a misskey post needs its token', () => {
  assert.throws(() => renderPost('misskey', huge, 'ja'), MissingTokenError);
  assert.throws(() => renderPost('misskey', huge, 'ja', { misskey: { token: '' } }), MissingTokenError);
});

test('slack text escapes its control characters, so that a telegram cannot form a link or a mention', () => {
  const summary: TelegramSummary = {
    ...huge,
    title: 'A&B',
    headline: '<!channel> <https://example.com|x>',
    facts: { kind: 'plain' },
  };
  const slack = JSON.parse(renderPost('slack', summary, 'ja').body as string);
  assert.equal(slack.blocks[1].text.text, '&lt;!channel&gt; &lt;https://example.com|x&gt;');
  // `text` is mrkdwn too (the notification and the fallback); a header is plain text, shown as written.
  const titled = JSON.parse(
    renderPost('slack', { ...summary, mark: null, title: '<!channel> A&B' }, 'ja').body as string,
  );
  assert.equal(titled.text, '&lt;!channel&gt; A&amp;B');
  assert.equal(titled.blocks[0].text.text, '<!channel> A&B');
  const misskey = JSON.parse(
    renderPost('misskey', { ...summary, headline: '@admin' }, 'ja', { misskey: { token: 't' } })
      .body as string,
  );
  assert.ok(misskey.text.includes('＠admin'));
});
