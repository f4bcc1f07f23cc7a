// A Discord or Slack subscription's mention (docs/webhooks.md "Mentions"): written before the posts
// whose severity reaches its threshold, and allowed to ping only itself; checked as the API and the
// console's form check it. Severities are those of the XML: a 緊急地震速報（警報） is urgent, an
// earthquake report of 最大震度4 is not even high.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { checkMention, mentionApplies } from '../../src/webhooks/formats/mention.ts';
import { renderPost } from '../../src/webhooks/render.ts';
import { markedAsTest } from '../../src/webhooks/summary.ts';
import { getJson } from '../support/data-api.ts';
import { fixture } from '../support/fixtures.ts';
import { ingestVariant } from '../support/ingest-variant.ts';
import { waitFor } from '../support/wait.ts';
import { keyedWebhookServer } from './keyed-server.ts';
import { summaryOfFile } from './posts-support.ts';

const WARNING = summaryOfFile(fixture('official', '37_01_02_240613_VXSE43.xml'))!;
const REPORT = summaryOfFile(fixture('official', '32-35_01_03_100514_VXSE53.xml'))!;
const ROLE = '<@&123456789012345678>';
const post = (
  format: 'discord' | 'slack',
  summary = WARNING,
  on: 'urgent' | 'high' = 'urgent',
  text = ROLE,
) => JSON.parse(renderPost(format, summary, 'ja', { mention: { text, on } }).body);

test('a Discord post of an early-warning warning starts with the mention, which alone may ping', () => {
  assert.equal(WARNING.severity, 'urgent');
  const body = post('discord');
  assert.match(body.content, /^<@&123456789012345678> 緊急地震速報（警報） 第2報 豊後水道/);
  assert.deepEqual(body.allowed_mentions, { parse: [], roles: ['123456789012345678'] });
  assert.deepEqual(post('discord', WARNING, 'urgent', '@everyone').allowed_mentions, { parse: ['everyone'] });
  assert.deepEqual(post('discord', WARNING, 'urgent', '<@!123456789012345678>').allowed_mentions, {
    parse: [],
    users: ['123456789012345678'],
  });
  const plain = JSON.parse(renderPost('discord', WARNING, 'ja').body);
  assert.equal(body.content, `${ROLE} ${plain.content}`, 'the rest is the post without a mention');
  assert.deepEqual(body.embeds, plain.embeds);
});

test('a report below the threshold, and any training or test telegram, mentions nobody', () => {
  assert.notEqual(REPORT.severity, 'urgent');
  assert.notEqual(REPORT.severity, 'high');
  for (const on of ['urgent', 'high'] as const) {
    const body = post('discord', REPORT, on);
    assert.doesNotMatch(body.content, /<@&/);
    assert.deepEqual(body.allowed_mentions, { parse: [] });
  }
  const tested = post('discord', markedAsTest(WARNING));
  assert.doesNotMatch(tested.content, /<@&/, 'a test of the warning is never loud');
});

test('a Slack post carries the mention in its notification text and its first section', () => {
  const body = post('slack', WARNING, 'urgent', '<!channel>');
  assert.match(body.text, /^<!channel> 緊急地震速報（警報）/);
  const lead = body.blocks.find((b: { type: string; text?: unknown }) => b.type === 'section' && b.text);
  assert.match(lead.text.text, /^<!channel> :rotating_light: \*/);
  assert.equal(
    body.blocks.filter((b: { text?: { text: string } }) => b.text?.text.includes('<!channel>')).length,
    1,
  );
});

test('mentions are checked for their format; without one, the threshold is the default', () => {
  const ok = (format: string, mention: string | null, mentionOn?: string) =>
    checkMention({ format, mention, mentionOn }).ok;
  for (const m of ['@everyone', '@here', ROLE, '<@123456789012345678>', '<@!12345678901234567>'])
    assert.equal(ok('discord', m), true, m);
  for (const m of ['<!channel>', '<!here>', '<@U024BE7LH>', '<!subteam^SAZ94GDB8>'])
    assert.equal(ok('slack', m), true, m);
  for (const [format, m] of [
    ['discord', '<!channel>'],
    ['slack', '@here'],
    ['discord', '<@&12>'],
    ['discord', `${ROLE} ${ROLE}`],
    ['discord', 'everyone'],
    ['ntfy', '@here'],
    ['namazu', ROLE],
  ])
    assert.equal(ok(format!, m!), false, `${format} ${m}`);
  assert.deepEqual(checkMention({ format: 'discord', mention: '  @here ', mentionOn: 'high' }), {
    ok: true,
    value: { mention: '@here', mentionOn: 'high' },
  });
  assert.deepEqual(checkMention({ format: 'ntfy', mention: '  ' }), {
    ok: true,
    value: { mention: null, mentionOn: 'urgent' },
  });
  assert.deepEqual(checkMention({ format: 'discord', mention: null, mentionOn: 'high' }), {
    ok: true,
    value: { mention: null, mentionOn: 'urgent' },
  });
  assert.equal(ok('discord', '@here', 'always'), false);
  assert.deepEqual(
    [
      mentionApplies('high', { on: 'high' }),
      mentionApplies('high', { on: 'urgent' }),
      mentionApplies('default', { on: 'high' }),
      mentionApplies('low', { on: 'urgent', always: true }),
    ],
    [true, false, false, true],
  );
});

test('through the API: a Discord webhook with a mention pings on a warning; shown, kept, dropped with its format, refused naming its field', async () => {
  const { server, receiver, headers, close } = await keyedWebhookServer(
    { status: 204 },
    { contracts: ['eew.warning'], scopes: ['eew.get.warning'] },
  );
  const call = (path: string, method: string, body?: unknown) =>
    getJson(server, path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  try {
    const base = {
      url: receiver.url,
      classifications: ['eew.warning', 'telegram.earthquake'],
      format: 'discord',
    };
    for (const bad of [
      { mention: '<!channel>' },
      { mention: '@here', format: 'ntfy' },
      { mention: '@here', mentionOn: 'often' },
    ]) {
      const refused = await call('/v2/webhook', 'POST', { ...base, ...bad });
      assert.equal(refused.status, 400, JSON.stringify(bad));
      assert.match(refused.body.error.message, /`mention(On)?`/);
    }
    const created = await call('/v2/webhook', 'POST', { ...base, mention: ROLE });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    assert.deepEqual([created.body.mention, created.body.mentionOn], [ROLE, 'urgent']);
    const id = created.body.id as number;
    // Another with its own mention: each post is its subscription's (a post is kept per mention).
    const here = await call('/v2/webhook', 'POST', { ...base, mention: '@here' });

    const warningSerial = await ingestVariant(
      server,
      readFileSync(fixture('official', '37_01_02_240613_VXSE43.xml')),
    );
    const reportSerial = await ingestVariant(
      server,
      readFileSync(fixture('official', '32-35_01_03_100514_VXSE53.xml')),
    );
    await waitFor(() => receiver.received.length === 4, { message: 'both delivered to both' });
    const posted = (sub: number, serial: number) =>
      JSON.parse(receiver.received.find((r) => r.headers['webhook-id'] === `msg_${sub}_${serial}`)!.body);
    const warning = posted(id, warningSerial);
    assert.ok(warning.content.startsWith(`${ROLE} 緊急地震速報（警報）`), warning.content);
    assert.deepEqual(warning.allowed_mentions, { parse: [], roles: ['123456789012345678'] });
    const warningHere = posted(here.body.id, warningSerial);
    assert.ok(warningHere.content.startsWith('@here 緊急地震速報（警報）'), warningHere.content);
    assert.deepEqual(warningHere.allowed_mentions, { parse: ['everyone'] });
    const report = posted(id, reportSerial);
    assert.deepEqual(report.allowed_mentions, { parse: [] }, 'the report is not severe');

    // A test never pings, unless asked to show the mention.
    const quiet = await call(`/v2/webhook/${id}/test`, 'POST');
    assert.equal(quiet.body.delivery.delivered, true);
    assert.deepEqual(JSON.parse(receiver.received.at(-1)!.body).allowed_mentions, { parse: [] });
    const loud = await call(`/v2/webhook/${id}/test?mention=true`, 'POST');
    assert.equal(loud.body.delivery.delivered, true);
    const pinged = JSON.parse(receiver.received.at(-1)!.body);
    assert.ok(pinged.content.startsWith(`${ROLE} 【試験】`), pinged.content);
    assert.deepEqual(pinged.allowed_mentions, { parse: [], roles: ['123456789012345678'] });
    for (const [query, which] of [
      ['?mention=yes', id],
      ['?mention=true', here.body.id + 1000],
    ] as const)
      assert.notEqual((await call(`/v2/webhook/${which}/test${query}`, 'POST')).status, 200, query);

    const kept = await call(`/v2/webhook/${id}`, 'PATCH', { lang: 'en', mentionOn: 'high' });
    assert.deepEqual(
      [kept.body.mention, kept.body.mentionOn],
      [ROLE, 'high'],
      'kept by a change of another field',
    );
    const removed = await call(`/v2/webhook/${id}`, 'PATCH', { mention: null });
    assert.deepEqual([removed.body.mention, removed.body.mentionOn], [null, 'urgent'], 'removed');
    await call(`/v2/webhook/${id}`, 'PATCH', { mention: ROLE });
    const toSlack = await call(`/v2/webhook/${id}`, 'PATCH', { format: 'slack' });
    assert.deepEqual(
      [toSlack.body.mention, toSlack.body.mentionOn],
      [null, 'urgent'],
      'dropped with Discord',
    );
    const toNtfy = await call(`/v2/webhook/${id}`, 'PATCH', { format: 'ntfy' });
    assert.equal('mention' in toNtfy.body, false, 'not shown for a format without mentions');
    const noMention = await call(`/v2/webhook/${id}/test?mention=true`, 'POST');
    assert.equal(noMention.status, 400, 'no mention to show');
    assert.match(noMention.body.error.message, /`mention` \(query\)/);
  } finally {
    await close();
  }
});
