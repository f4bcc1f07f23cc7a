// Ready-made posts of cancellations (取消) and corrections (訂正) of every converted type and of the
// types without a conversion. A cancellation of a meteorological type converts with the body of the
// telegram it withdraws (docs/conversion.md "Cancellations"): its post must still say, first and
// plainly, that the telegram was withdrawn, and never repeat what was withdrawn as if in force.
// Every expected value is read from the XML (its Head/Title, Head/Headline, Body/Text).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fixture, fixtureIndex, restFixtureIndex } from '../support/fixtures.ts';
import { postFormats, renderPost, type RenderedPost } from '../../src/webhooks/render.ts';
import type { TelegramSummary } from '../../src/webhooks/summary.ts';
import { decodeEncodedWords, summaryOfXml } from './posts-support.ts';

const LANGS = ['ja', 'en'] as const;
const TRAINING = { ja: '【訓練】', en: '[TRAINING] ' } as const;
const TEST = { ja: '【試験】', en: '[TEST] ' } as const;
const CANCELLED = { ja: '【取消】', en: '[CANCELLED] ' } as const;
const CORRECTED = { ja: '【訂正】', en: '[CORRECTION] ' } as const;
/** What a sentence withdrawing a telegram says, in each language. */
const WITHDRAWN = { ja: /取り消/, en: /cancel/i } as const;

/** One issued (発表) fixture of every type, across both fixture folders. */
const issues = (() => {
  const seen = new Set<string>();
  return [...fixtureIndex(), ...restFixtureIndex()].filter((e) => {
    if (e.infoType !== '発表' || seen.has(e.type)) return false;
    seen.add(e.type);
    return true;
  });
})();

const withInfoType = (xml: string, infoType: string) => {
  const out = xml.replace(/<InfoType>\s*発表\s*<\/InfoType>/, `<InfoType>${infoType}</InfoType>`);
  assert.notEqual(out, xml, 'an InfoType to replace');
  return out;
};
const headTitle = (xml: string) =>
  /<Head[^>]*>\s*<Title>([^<]*)<\/Title>/
    .exec(xml)![1]!
    .replace(/[\s\u3000]+/g, ' ')
    .trim();
/** Head/Headline/Text as JMA wrote it, trimmed; null when empty. */
const headHeadline = (xml: string) => {
  const text = /<Headline>\s*<Text>([^<]*)<\/Text>/.exec(xml)?.[1]?.replace(/^[\s\u3000]+|[\s\u3000]+$/g, '');
  return text ? text : null;
};
const markOf = (xml: string, lang: 'ja' | 'en') => {
  const status = /<Status>([^<]*)<\/Status>/.exec(xml)?.[1];
  const title = headTitle(xml);
  if (status === '訓練') return TRAINING[lang];
  if (status === '試験' || title === '緊急地震速報配信テスト') return TEST[lang];
  return '';
};

/** Each format's title (as the notification shows it), its whole text, and its fields. */
function readPost(format: (typeof postFormats)[number], post: RenderedPost) {
  if (format === 'ntfy') {
    const body = post.body as string;
    return {
      titles: [decodeEncodedWords(post.headers.title!)],
      text: body,
      lines: body.split('\n'),
      fields: 0,
    };
  }
  const body = JSON.parse(post.body as string);
  if (format === 'discord') {
    const embed = body.embeds[0];
    return {
      titles: [body.content as string, embed.title as string],
      text: [
        body.content,
        embed.title,
        embed.description ?? '',
        ...(embed.fields ?? []).map((f: { value: string }) => f.value),
      ].join('\n'),
      lines: (embed.description ?? '').split('\n'),
      fields: (embed.fields ?? []).length,
    };
  }
  if (format === 'slack') {
    const sections = body.blocks.filter((b: { type: string }) => b.type === 'section');
    return {
      titles: [body.text as string, body.blocks[0].text.text as string],
      text: JSON.stringify(body),
      lines: (sections[0]?.text?.text ?? '').split('\n'),
      fields: sections.filter((s: { fields?: unknown[] }) => s.fields).length,
    };
  }
  const lines = (body.text as string).split('\n');
  return { titles: [lines[0]!], text: body.text as string, lines: lines.slice(1), fields: 0 };
}

function render(summary: TelegramSummary, lang: 'ja' | 'en') {
  return postFormats.map((format) => ({
    format,
    ...readPost(format, renderPost(format, summary, lang, { misskey: { token: 't' } })),
  }));
}

test('a cancellation of every type says first that it was withdrawn and repeats nothing withdrawn', () => {
  assert.ok(issues.length >= 80, `${issues.length} types`);
  for (const entry of issues) {
    const xml = withInfoType(readFileSync(entry.path, 'utf8'), '取消');
    const summary = summaryOfXml(Buffer.from(xml), entry.file);
    assert.ok(summary, entry.file);
    assert.ok(
      summary.severity === 'default' || summary.severity === 'low',
      `${entry.file}: ${summary.severity}`,
    );
    // What the withdrawn telegram announced (a cancellation built this way keeps it, as JMA's
    // meteorological ones keep their body): it must not be posted as if in force.
    const withdrawn = headHeadline(xml);
    for (const lang of LANGS) {
      const mark = markOf(xml, lang);
      for (const post of render(summary, lang)) {
        const where = `${entry.file} (${entry.type}) ${post.format} ${lang}`;
        for (const title of post.titles)
          assert.ok(title.startsWith(mark + CANCELLED[lang]), `${where}: ${title}`);
        const first = post.lines.find((line: string) => line.replace(mark, '').trim() !== '') ?? '';
        assert.match(first, WITHDRAWN[lang], `${where}: ${first}`);
        assert.equal(post.fields, 0, `${where}: fields of a cancellation`);
        if (withdrawn !== null && !WITHDRAWN.ja.test(withdrawn))
          assert.ok(!post.text.includes(withdrawn.split('\n')[0]!), `${where}: repeats ${withdrawn}`);
      }
    }
  }
});

test("a meteorological cancellation names what it withdraws; JMA's own sentence is kept where it has one", () => {
  // 17_01_01 VXWW50: Head/Title 福岡県土砂災害警戒情報, Headline ＜概況＞ 降り続く大雨のため… (an issue).
  const landslide = readFileSync(fixture('official', '17_01_01_190529_VXWW50.xml'), 'utf8');
  const s = summaryOfXml(Buffer.from(withInfoType(landslide, '取消')), '17_01_01_190529_VXWW50.xml');
  assert.ok(s);
  const ntfy = renderPost('ntfy', s, 'ja');
  assert.equal(decodeEncodedWords(ntfy.headers.title!), '【取消】福岡県土砂災害警戒情報');
  assert.equal(
    (ntfy.body as string).split('\n')[0],
    '先に発表された「福岡県土砂災害警戒情報」は取り消されました。',
  );
  assert.ok(!(ntfy.body as string).includes('降り続く大雨'), 'the withdrawn text');
  const en = renderPost('ntfy', s, 'en');
  assert.match(
    (en.body as string).split('\n')[0]!,
    /^The earlier report \(.*福岡県土砂災害警戒情報\) is cancelled\.$/,
  );

  // 32-35_09_02 VXSE56 (JMA's own cancellation): Headline 伊豆東部の地震活動の見通しに関する情報を発表します。,
  // Body/Text １６日１３時３０分に発表した「…」は誤りですので取り消します。
  const izu = summaryOfXml(readFileSync(fixture('official', '32-35_09_02_220316_VXSE56.xml')));
  assert.ok(izu);
  const body = renderPost('ntfy', izu, 'ja').body as string;
  assert.equal(
    body.split('\n')[0],
    '１６日１３時３０分に発表した「伊豆東部の地震活動の見通しに関する情報」は誤りですので取り消します。',
  );
  assert.ok(!body.includes('を発表します。'));
  assert.equal(
    (renderPost('ntfy', izu, 'en').body as string).split('\n')[0],
    'The 伊豆東部の地震活動の見通しに関する情報 issued on １６日１３時３０分 was in error and is cancelled.',
  );
});

test('a correction of every type says it is a correction at the start of every title', () => {
  for (const entry of issues) {
    const xml = withInfoType(readFileSync(entry.path, 'utf8'), '訂正');
    const summary = summaryOfXml(Buffer.from(xml), entry.file);
    assert.ok(summary, entry.file);
    for (const lang of LANGS) {
      const mark = markOf(xml, lang);
      for (const post of render(summary, lang)) {
        const where = `${entry.file} (${entry.type}) ${post.format} ${lang}`;
        for (const title of post.titles)
          assert.ok(title.startsWith(mark + CORRECTED[lang]), `${where}: ${title}`);
      }
    }
  }
});
