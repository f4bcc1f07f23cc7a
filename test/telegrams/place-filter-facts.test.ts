// What a telegram names for the filters by place and strength (docs/realtime.md "Filters by place
// and strength"), checked against the XML of JMA's telegrams: every expectation is read from the
// fixture itself.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { readTelegram } from '../../src/telegrams/read.ts';
import { fixture } from '../support/fixtures.ts';

const factsOf = (xml: string) => {
  const outcome = readTelegram(Buffer.from(xml), { receivedTime: Date.now() });
  assert.ok(outcome.ok);
  return outcome.telegram.facts!;
};
const read = (path: string) => {
  const xml = readFileSync(path, 'utf8');
  return { xml, facts: factsOf(xml) };
};

/** The codes of the `Area` elements (name, then code) of one part of the XML. */
const areaCodes = (part: string) =>
  [...part.matchAll(/<Area>\s*<Name>[^<]*<\/Name>\s*<Code>(\d+)<\/Code>/g)].map((m) => m[1]!);

test('early warning: the areas its headline warns, even those its forecast no longer lists', () => {
  // 第6報 of JMA's 2024 豊後水道 sample: the headline still warns 広島 (9340) and 広島県南西部
  // (592), whose forecast this telegram does not repeat. Its 地方予報区 (99xx) are not areas.
  const { xml, facts } = read(fixture('rest', '77_01_06_240613_VXSE45.xml'));
  const headline = /<Headline>[\s\S]*<\/Headline>/.exec(xml)![0];
  assert.ok(!xml.slice(xml.indexOf('<Body')).includes('<Code>592</Code>'));
  for (const code of areaCodes(headline).filter((c) => !c.startsWith('99')))
    assert.ok(facts.areas.includes(code), code);
  // 広島県南西部 and 広島 (緊急地震速報／府県予報区 9340) lie in Hiroshima (34).
  assert.ok(facts.areas.includes('34'));
});

test('long-period ground motion: the stations listed directly under their area', () => {
  // VXSE62 lists its 長周期地震動観測点 under Pref/Area, with no City between.
  const { xml, facts } = read(fixture('official', '78_01_01_240613_VXSE62.xml'));
  const stations = [...xml.matchAll(/<IntensityStation>\s*<Name>[^<]*<\/Name>\s*<Code>(\d+)<\/Code>/g)].map(
    (m) => m[1]!,
  );
  assert.ok(stations.length > 0);
  for (const code of stations) assert.ok(facts.areas.includes(code), code);
  assert.equal(facts.maxIntensity, '5-');
});

test('offshore tsunami observation: the coasts its estimation names, with their prefectures', () => {
  // 沖合の津波観測に関する情報: Tsunami/Estimation/Item/Area 岩手県 (210), Iwate (03).
  const { facts } = read(fixture('official', '61_11_01_250206_VTSE52.xml'));
  assert.equal(facts.kind, 'tsunami');
  assert.ok(facts.areas.includes('210') && facts.areas.includes('03'), facts.areas.join(','));
  // The 2016 drill: 静岡県 380, 三重県南部 400, 和歌山県 530, 徳島県 580, 高知県 610.
  const drill = read(fixture('official', '32-39_12_05_250206_VTSE52.xml')).facts;
  for (const code of ['380', '22', '400', '24', '530', '30', '580', '36', '610', '39'])
    assert.ok(drill.areas.includes(code), code);
});

test('early warning: the epicentre, with its prefecture when on land, as earthquake information names it', () => {
  // 第2報 of JMA's 2024 豊後水道 VXSE44 sample forecasts no area yet; it names its epicentre.
  const { xml, facts } = read(fixture('official', '36_01_02_240613_VXSE44.xml'));
  assert.ok(!xml.includes('<Pref>'));
  assert.ok(facts.areas.includes('681'), '豊後水道 (681), at sea: no prefecture');
  // The same report of an epicentre on land (石川県能登地方, 390): its prefecture, Ishikawa (17), too.
  const onLand = xml.replace(
    '<Name>豊後水道</Name><Code type="震央地名">681</Code>',
    '<Name>石川県能登地方</Name><Code type="震央地名">390</Code>',
  );
  const landFacts = factsOf(onLand);
  assert.ok(landFacts.areas.includes('390') && landFacts.areas.includes('17'), String(landFacts.areas));
});
