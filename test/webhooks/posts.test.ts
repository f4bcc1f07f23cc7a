// Ready-made posts of representative telegrams. Every expected value below is read from the XML
// fixture itself (its Head, Body and Status), never from the code's output.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { join } from 'node:path';
import { fixture, fixturesRoot } from '../support/fixtures.ts';
import { renderPost } from '../../src/webhooks/render.ts';
import type { TelegramSummary } from '../../src/webhooks/summary.ts';
import { describe as describePost } from '../../src/webhooks/wording.ts';
import { decodeEncodedWords, summaryOfDocument, summaryOfFile, summaryOfXml } from './posts-support.ts';

const official = (file: string) => {
  const summary = summaryOfFile(fixture('official', file));
  assert.ok(summary, file);
  return summary;
};
const field = (summary: TelegramSummary, lang: 'ja' | 'en', name: string) =>
  describePost(summary, lang).fields.find((f) => f.name === name)?.value;
const discord = (summary: TelegramSummary, lang: 'ja' | 'en' = 'ja') =>
  JSON.parse(renderPost('discord', summary, lang).body as string);

test('an EEW warning: serial, forecast intensity, epicentre, magnitude, depth and the regions warned', () => {
  // 37_01_02: VXSE43 Serial 2, 豊後水道 Mj 6.6, depth 40 km, ForecastInt 6-/6-, origin 23:14:47,
  // Headline 豊後水道で地震 四国 九州 中国で強い揺れ, 35 regions in 緊急地震速報（細分区域）.
  const s = official('37_01_02_240613_VXSE43.xml');
  assert.equal(s.severity, 'urgent');
  const ja = describePost(s, 'ja');
  assert.equal(ja.title, '緊急地震速報（警報） 第2報');
  assert.equal(ja.gist, '豊後水道 M6.6 最大予測震度6弱');
  assert.equal(ja.headline, '豊後水道で地震　四国　九州　中国で強い揺れ');
  assert.equal(field(s, 'ja', '最大予測震度'), '震度6弱');
  assert.equal(field(s, 'ja', '深さ'), '40km');
  assert.equal(field(s, 'ja', '発生時刻'), '2024/04/17 23:14:47 JST');
  const regions = field(s, 'ja', '警報地域')!.split('、');
  assert.equal(regions.length, 35);
  assert.deepEqual(regions.slice(0, 3), ['愛媛県南予', '高知県西部', '大分県南部']);
  assert.equal(regions.at(-1), '佐賀県北部');
  assert.equal(ja.time, '2024/04/17 23:15:10 JST');

  const en = describePost(s, 'en');
  assert.equal(en.title, 'Earthquake Early Warning (warning) #2');
  assert.equal(en.gist, '豊後水道, M6.6, Max forecast intensity Shindo 6-');
  assert.equal(field(s, 'en', 'Depth'), '40 km');

  const post = discord(s);
  assert.equal(post.content, '緊急地震速報（警報） 第2報 豊後水道 M6.6 最大予測震度6弱');
  assert.equal(post.embeds[0].color, 0xd32f2f);
  assert.equal(post.embeds[0].timestamp, '2024-04-17T14:15:10.000Z');
  const ntfy = renderPost('ntfy', s, 'ja');
  assert.equal(ntfy.headers.priority, 'urgent');
  assert.equal(decodeEncodedWords(ntfy.headers.title!), '緊急地震速報（警報） 第2報');
});

test('an EEW cancellation says so and is not urgent', () => {
  // 37_01_03: VXSE43 InfoType 取消, Body/Text 先ほどの、緊急地震速報（警報）を取り消します。, 23:17:00.
  const s = official('37_01_03_240613_VXSE43.xml');
  assert.equal(s.severity, 'default');
  const ja = describePost(s, 'ja');
  assert.equal(ja.title, '【取消】緊急地震速報（警報）');
  assert.equal(ja.headline, '先ほどの、緊急地震速報（警報）を取り消します。');
  assert.deepEqual(ja.fields, []);
  const en = describePost(s, 'en');
  assert.equal(en.title, '[CANCELLED] Earthquake Early Warning (warning)');
  assert.equal(en.headline, 'The earlier Earthquake Early Warning (warning) is cancelled.');
  const slack = JSON.parse(renderPost('slack', s, 'ja').body as string);
  assert.equal(slack.text, '【取消】緊急地震速報（警報）');
  assert.equal(slack.blocks[0].text.text, '【取消】緊急地震速報（警報）');
});

test('a final EEW is named so', () => {
  // 36_01_10: VXSE44 Serial 10, 豊後水道 Mj 6.5, ForecastInt 5+/5+. JMA marks the last report with
  // Body/NextAdvisory, which this sample lacks: it is added here as JMA writes it.
  const xml = readFileSync(fixture('official', '36_01_10_240613_VXSE44.xml'), 'utf8').replace(
    '</Body>',
    '<NextAdvisory>この情報をもって、緊急地震速報：最終報とします。</NextAdvisory></Body>',
  );
  const s = summaryOfXml(Buffer.from(xml), '36_01_10_240613_VXSE44.xml');
  assert.ok(s);
  // By then 9 regions are under the warning (Category/Kind 緊急地震速報（警報）): high, not urgent.
  assert.equal(s.severity, 'high');
  assert.equal(describePost(s, 'ja').title, '緊急地震速報（予報） 第10報 最終報');
  assert.equal(describePost(s, 'ja').gist, '豊後水道 M6.5 最大予測震度5強');
  assert.equal(describePost(s, 'en').title, 'Earthquake Early Warning (forecast) #10, final');
  assert.equal(describePost(s, 'en').gist, '豊後水道, M6.5, Max forecast intensity Shindo 5+');
});

test('an EEW on an assumed hypocentre shows no magnitude or depth: JMA fills in M1.0 and 10 km', () => {
  // dmdata-json vxse45-temporalhypocenter: a real VXSE45 (2023-05-05, serial 6) of the PLUM method,
  // Earthquake/Condition 仮定震源要素 at 富山湾, Magnitude 1.0, depth 10 km: JMA's fixed values for a
  // hypocentre it assumes, not a measure. ForecastInt 6- to over, 石川県能登 under the warning.
  const document = JSON.parse(
    readFileSync(join(fixturesRoot, 'dmdata-json/real-telegrams/vxse45-temporalhypocenter.json'), 'utf8'),
  );
  const s = summaryOfDocument(fixture('official', '77_01_04_240613_VXSE45.xml'), document);
  assert.ok(s);
  const ja = describePost(s, 'ja');
  assert.equal(ja.gist, '富山湾 最大予測震度6弱以上');
  assert.equal(field(s, 'ja', '震源'), '富山湾（仮定震源要素）');
  assert.equal(field(s, 'ja', '規模'), '不明');
  assert.equal(field(s, 'ja', '深さ'), '不明');
  assert.equal(describePost(s, 'en').gist, '富山湾, Max forecast intensity Shindo 6- or more');
  assert.equal(field(s, 'en', 'Magnitude'), 'unknown');
  assert.equal(discord(s).content, '緊急地震速報（地震動予報） 第6報 富山湾 最大予測震度6弱以上');
});

test('an earthquake report (VXSE53): intensity, hypocentre, the strongest regions and the tsunami comment', () => {
  // 32-35_08_07: 岩手県沖 Mj 6.3, depth 30 km, origin 06:55, MaxInt 4; regions with 4: 岩手県沿岸南部,
  // 岩手県内陸北部, 宮城県北部, 宮城県中部; ForecastComment 0215.
  const s = official('32-35_08_07_240613_VXSE53.xml');
  assert.equal(s.severity, 'default');
  const ja = describePost(s, 'ja');
  assert.equal(ja.title, '震源・震度情報');
  assert.equal(ja.gist, '岩手県沖 M6.3 最大震度4');
  assert.equal(ja.headline, '５日０６時５６分ころ、地震がありました。');
  assert.equal(field(s, 'ja', '最大震度'), '震度4');
  assert.equal(field(s, 'ja', '規模'), 'M6.3');
  assert.equal(field(s, 'ja', '深さ'), '30km');
  assert.equal(field(s, 'ja', '発生時刻'), '2010/07/05 06:55 JST');
  assert.equal(field(s, 'ja', '震度4'), '岩手県沿岸南部、岩手県内陸北部、宮城県北部、宮城県中部');
  assert.deepEqual(
    new Set(field(s, 'ja', '震度3')!.split('、')),
    new Set(
      '岩手県沿岸北部 岩手県内陸南部 宮城県南部 青森県津軽北部 青森県三八上北 青森県下北 秋田県沿岸北部 秋田県沿岸南部 秋田県内陸南部 山形県庄内 山形県村山 福島県中通り'.split(
        ' ',
      ),
    ),
  );
  assert.equal(field(s, 'ja', '津波'), 'この地震による津波の心配はありません。');
  assert.equal(field(s, 'en', 'Shindo 4'), '岩手県沿岸南部, 岩手県内陸北部, 宮城県北部, 宮城県中部');
  assert.equal(field(s, 'en', 'Tsunami'), 'No tsunami is expected from this earthquake.');
  assert.equal(describePost(s, 'en').headline, null, 'the Japanese headline says nothing the fields do not');
});

test('a tsunami warning (VTSE41): each class with its areas, the most severe first', () => {
  // 32-39_11_02_250206: 53 大津波警報：発表 (岩手県, 宮城県, 福島県); 51 津波警報 (5 areas);
  // 62 津波注意報 (15 areas); 71 津波予報（若干の海面変動） (20 areas).
  const s = official('32-39_11_02_250206_VTSE41.xml');
  assert.equal(s.severity, 'urgent');
  const ja = describePost(s, 'ja');
  assert.equal(ja.title, '大津波警報・津波警報・津波注意報・津波予報');
  assert.equal(
    ja.headline,
    '東日本大震災クラスの津波が来襲します。\n大津波警報・津波警報を発表しました。\nただちに避難してください。',
  );
  assert.deepEqual(
    ja.fields.map((f) => [f.name, f.value.split('、').length]),
    [
      ['大津波警報：発表', 3],
      ['津波警報', 5],
      ['津波注意報', 15],
      ['津波予報（若干の海面変動）', 20],
    ],
  );
  assert.equal(ja.fields[0]!.value, '岩手県、宮城県、福島県');
  assert.equal(
    ja.fields[1]!.value,
    '北海道太平洋沿岸中部、青森県太平洋沿岸、茨城県、千葉県九十九里・外房、伊豆諸島',
  );
  assert.deepEqual(
    describePost(s, 'en').fields.map((f) => f.name),
    [
      'Major tsunami warning (issued now)',
      'Tsunami warning',
      'Tsunami advisory',
      'Tsunami forecast (slight sea level change)',
    ],
  );
  assert.equal(renderPost('ntfy', s, 'en').headers.priority, 'urgent');
  assert.equal(renderPost('ntfy', s, 'en').headers.tags, 'ocean,tsunami');
});

test('a tsunami class is one field however many of JMA codes share its name, in either language', () => {
  // 20231009120003 VTSE41 (real): 津波予報（若干の海面変動） under code 71 for 6 areas and under code 72
  // (after the advisory was lifted) for 9.
  const forecast = summaryOfFile(fixture('real', '20231009120003_08446949_VTSE41.xml'));
  assert.ok(forecast);
  const ja = describePost(forecast, 'ja').fields;
  assert.deepEqual(
    ja.map((f) => f.name),
    ['津波予報（若干の海面変動）'],
  );
  assert.equal(ja[0]!.value.split('、').length, 15);
  // 32-39_11_06_250206 VTSE41: 大津波警報 (52, in force) for 岩手県, 宮城県, 福島県 and 大津波警報：発表
  // (53, issued now) for 青森県太平洋沿岸: two classes, which English tells apart too.
  const major = official('32-39_11_06_250206_VTSE41.xml');
  const names = describePost(major, 'en').fields.map((f) => f.name);
  assert.equal(new Set(names).size, names.length, names.join(' / '));
});

test('a volcano warning (VFVO50): headline, alert level and the municipalities under the warning', () => {
  // 45_01_01: 浅間山, レベル３（入山規制） 引上げ; 火口周辺警報 for 群馬県嬬恋村, 長野県小諸市,
  // 長野県軽井沢町, 長野県御代田町.
  const s = official('45_01_01_200522_VFVO50.xml');
  const ja = describePost(s, 'ja');
  assert.equal(ja.title, '火山名 浅間山 噴火警報（火口周辺）');
  assert.ok(ja.headline!.startsWith('＜浅間山に火口周辺警報（噴火警戒レベル３、入山規制）を発表＞'));
  assert.equal(field(s, 'ja', '火山'), '浅間山');
  assert.equal(field(s, 'ja', '警戒レベル'), 'レベル３（入山規制）');
  assert.equal(field(s, 'ja', '火口周辺警報'), '群馬県嬬恋村、長野県小諸市、長野県軽井沢町、長野県御代田町');
  assert.equal(field(s, 'en', 'Alert level'), 'Volcanic alert level 3 (レベル３（入山規制）)');
  assert.equal(s.severity, 'default');
});

test('an eruption flash report (VFVO56) is high, and names the eruption rather than an alert level', () => {
  // 67_01_01: 御嶽山 噴火速報; VolcanoInfo Kind 噴火 (code 52, the phenomenon) for the volcano and for
  // 長野県王滝村, 長野県木曽町, 岐阜県高山市, 岐阜県下呂市.
  const s = official('67_01_01_140927_VFVO56.xml');
  assert.equal(s.severity, 'high', 'docs/webhooks.md: 噴火速報 is high');
  assert.equal(renderPost('ntfy', s, 'ja').headers.priority, 'high');
  assert.equal(field(s, 'ja', '火山'), '御嶽山');
  assert.equal(field(s, 'ja', '警戒レベル'), undefined, '噴火 is no alert level');
  assert.equal(field(s, 'ja', '噴火'), '長野県王滝村、長野県木曽町、岐阜県高山市、岐阜県下呂市');
});

test('a volcano telegram shows an alert level only where JMA gives one for the one volcano', () => {
  // 43_01_01 VFVO52: 浅間山, Kind 噴火 (the phenomenon observed). 66_01_01 VFVO53: 桜島, Kind
  // 降灰予報（定時） (the kind of forecast). 44_01_01 VFVO51: the monthly overview of every volcano,
  // each with its own level (口永良部島 レベル５, 阿蘇山 and 桜島 レベル３, …).
  for (const file of ['43_01_01_200522_VFVO52.xml', '66_01_01_210517_VFVO53.xml']) {
    assert.equal(field(official(file), 'ja', '警戒レベル'), undefined, file);
    assert.equal(field(official(file), 'en', 'Alert level'), undefined, file);
  }
  const overview = official('44_01_01_151008_VFVO51.xml');
  assert.equal(field(overview, 'ja', '警戒レベル'), undefined, 'one level for twenty volcanoes');
  assert.equal(overview.severity, 'low', 'a monthly overview is no level 5 alert');
  // 44_02_01 VFVO51: 草津白根山 alone, レベル２（火口周辺規制）.
  assert.equal(field(official('44_02_01_200522_VFVO51.xml'), 'ja', '警戒レベル'), 'レベル２（火口周辺規制）');
});

test('a weather warning (VPWW54): headline and the areas under each warning, emergency warnings first', () => {
  // 15_12_01_161130: 大雨特別警報 and 洪水警報 for 大田邑智地区, 浜田地区; 大雨注意報, 雷注意報 and
  // 洪水注意報 elsewhere (市町村等をまとめた地域等).
  const s = official('15_12_01_161130_VPWW54.xml');
  assert.equal(s.severity, 'high');
  const ja = describePost(s, 'ja');
  assert.equal(ja.title, '島根県気象警報・注意報');
  assert.equal(
    ja.headline,
    '【特別警報（大雨）】浜田地区、大田邑智地区に特別警報を発表しています。土砂災害や低い土地の浸水、河川の増水に最大級の警戒をしてください。',
  );
  assert.deepEqual(
    ja.fields.map((f) => [f.name, f.value]),
    [
      ['大雨特別警報', '大田邑智地区、浜田地区'],
      ['洪水警報', '大田邑智地区、浜田地区'],
      ['大雨注意報', '松江地区、出雲地区、雲南地区、益田地区'],
      ['雷注意報', '松江地区、出雲地区、雲南地区、大田邑智地区、浜田地区、益田地区'],
      ['洪水注意報', '松江地区、出雲地区、雲南地区、益田地区'],
    ],
  );
  assert.deepEqual(
    describePost(s, 'en').fields.map((f) => f.name),
    [
      'Heavy rain emergency warning',
      'Flood warning',
      'Heavy rain advisory',
      'Thunderstorm advisory',
      'Flood advisory',
    ],
  );
});

test('a training telegram is marked at the start of every title and text, and never urgent', () => {
  // 32-35_01_03_240613: Status 訓練, 駿河湾 Mj 5.9, MaxInt 5-.
  const s = official('32-35_01_03_240613_VXSE53.xml');
  assert.equal(s.mark, 'training');
  assert.equal(s.severity, 'default', 'a real 5- would be high');
  assert.equal(describePost(s, 'ja').gist, '駿河湾 M5.9 最大震度5弱');
  const d = discord(s);
  assert.ok(d.content.startsWith('【訓練】震源・震度情報'));
  assert.ok(d.embeds[0].title.startsWith('【訓練】'));
  assert.equal(d.embeds[0].color, 0x9e9e9e);
  const slack = JSON.parse(renderPost('slack', s, 'en').body as string);
  assert.ok(slack.text.startsWith('[TRAINING] Earthquake report'));
  const ntfy = renderPost('ntfy', s, 'ja');
  assert.ok((ntfy.body as string).startsWith('【訓練】'));
  assert.ok(decodeEncodedWords(ntfy.headers.title!).startsWith('【訓練】'));
  assert.equal(ntfy.headers.priority, 'default');
  const misskey = JSON.parse(renderPost('misskey', s, 'en', { misskey: { token: 'tok' } }).body as string);
  assert.ok(misskey.text.startsWith('[TRAINING] Earthquake report'));
  assert.equal(misskey.i, 'tok');
  assert.equal(misskey.visibility, 'public');
});

test('the EEW delivery test (VXSE42, Status 試験) is marked as a test', () => {
  const s = official('54_01_01_100514_VXSE42.xml');
  assert.equal(s.mark, 'test');
  assert.ok(describePost(s, 'ja').title.startsWith('【試験】'));
  assert.ok(describePost(s, 'en').title.startsWith('[TEST] '));
});

test('a telegram without a conversion is summarised from its title and headline', () => {
  // 15_13_01_161226_VPWW53: the 気象警報・注意報 type that has no JSON conversion.
  const path = fixture('official', '15_13_01_161226_VPWW53.xml');
  const xml = readFileSync(path, 'utf8');
  const s = summaryOfFile(path);
  assert.ok(s);
  const title = /<Head[^>]*>\s*<Title>([^<]*)<\/Title>/.exec(xml)![1]!;
  const headline = /<Headline>\s*<Text>([^<]*)<\/Text>/.exec(xml)![1]!.trim();
  assert.equal(describePost(s, 'ja').title, title.replace(/\s+/g, ' ').trim());
  assert.equal(describePost(s, 'ja').headline, headline);
});
