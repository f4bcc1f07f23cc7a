import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { joinFacts } from '../../src/telegrams/event-facts.ts';
import { parsePlaceFilters, placeFilterMessages } from '../../src/telegrams/place-filters.ts';
import { readTelegram } from '../../src/telegrams/read.ts';
import { fixture } from '../support/fixtures.ts';

const factsOf = (folder: 'official' | 'real' | 'older', file: string) => {
  const read = readTelegram(readFileSync(fixture(folder, file)), { receivedTime: Date.now() });
  assert.ok(read.ok);
  return read.telegram.facts;
};

test('earthquake: the prefectures, areas, cities and stations of the intensities, and the epicentre', () => {
  // 大阪府南部 (epicentre 521, a land area of Osaka: 27); 和歌山県 30 > 和歌山県北部 550 > 和歌山市
  // 3020100 > 和歌山市一番丁＊ 3020120, intensity 1.
  assert.deepEqual(factsOf('real', '20210216071046_0_VXSE53_270000.xml'), {
    kind: 'earthquake',
    areas: ['27', '30', '3020100', '3020120', '521', '550'],
    maxIntensity: '1',
    event: 'earthquake:20210216160714',
  });
});

test('a distant earthquake names its epicentre only and has no intensity', () => {
  assert.deepEqual(factsOf('real', '20230411050043_01977411_VXSE53.xml'), {
    kind: 'earthquake',
    areas: ['941'],
    event: 'earthquake:20230410221000',
  });
});

test('early warning: the forecast areas with their prefectures, and the highest forecast intensity', () => {
  // 石川 (9170) > 石川県能登 390 (4 to 5-), 石川県加賀 391 (3 to 4); the whole forecast 5- to 5-;
  // the epicentre 能登半島沖 (495), at sea.
  assert.deepEqual(factsOf('real', '20240116184225_02245216_VXSE43.xml'), {
    kind: 'eew',
    areas: ['17', '390', '391', '495', '9170'],
    maxIntensity: '5-',
    event: 'eew:20240116184216',
  });
  // Its cancellation names nothing: ingest joins the earlier telegrams' facts (event-facts.ts).
  assert.deepEqual(factsOf('official', '37_01_03_240613_VXSE43.xml'), {
    kind: 'eew',
    areas: [],
    event: 'eew:20240417231454',
  });
});

test('tsunami: the forecast areas with the prefectures of their coasts', () => {
  assert.deepEqual(factsOf('real', '20220918171502_07401528_VTSE41.xml'), {
    kind: 'tsunami',
    areas: ['47', '802'],
    event: 'tsunami:20220918154449',
  });
});

test('warnings: every area named, and the prefecture of the JIS-based codes', () => {
  const file = '15_14_01_170216_VPWW53.xml';
  const xml = readFileSync(fixture('official', file), 'utf8');
  const named = new Set(
    [...xml.matchAll(/<Area>\s*<Name>[^<]*<\/Name>\s*<Code>([^<]*)<\/Code>/g)].map((m) => m[1]!),
  );
  assert.ok(named.has('130000') && named.has('1342100'));
  const facts = factsOf('official', file)!;
  assert.equal(facts.kind, 'other');
  assert.deepEqual(facts.areas, [...named, '13'].sort());
  assert.equal(facts.maxIntensity, undefined);
  assert.equal(facts.event, undefined);
});

test('the regional forecast codes (010xxx) lie in no prefecture', () => {
  // 全般海上警報 and the like name 全国 010000 and 地方予報区 such as 北海道地方 010100.
  const xml = `<Report><Control><Title>t</Title><DateTime>2024-01-01T00:00:00Z</DateTime><Status>通常</Status>
    <EditorialOffice>気象庁本庁</EditorialOffice><PublishingOffice>気象庁</PublishingOffice></Control>
    <Head><Title>t</Title><ReportDateTime>2024-01-01T09:00:00+09:00</ReportDateTime>
    <TargetDateTime>2024-01-01T09:00:00+09:00</TargetDateTime><EventID/><InfoType>発表</InfoType>
    <Serial/><InfoKind>k</InfoKind><InfoKindVersion>1.0_0</InfoKindVersion><Headline><Text/></Headline></Head>
    <Body><Area><Name>北海道地方</Name><Code>010100</Code></Area><Area><Name>宗谷地方</Name><Code>011000</Code></Area></Body></Report>`;
  const read = readTelegram(Buffer.from(xml), { receivedTime: Date.now(), type: 'VPCW51' });
  assert.ok(read.ok);
  assert.deepEqual(read.telegram.facts?.areas, ['01', '010100', '011000']);
});

test('an event joins the areas of its telegrams and keeps the highest intensity', () => {
  const joined = joinFacts({ kind: 'eew', areas: [], event: 'eew:1' }, [
    { kind: 'eew', areas: ['17', '390'], maxIntensity: '5-', event: 'eew:1' },
    { kind: 'eew', areas: ['17', '391'], maxIntensity: '4', event: 'eew:1' },
  ]);
  assert.deepEqual(joined, { kind: 'eew', areas: ['17', '390', '391'], maxIntensity: '5-', event: 'eew:1' });
});

test('place filters from a body and from a query; a bad value names its field', () => {
  assert.deepEqual(parsePlaceFilters({ areas: ['390', '17', '17'], minIntensity: '5+' }, 'body'), {
    ok: true,
    value: { areas: ['17', '390'], minIntensity: '5+' },
  });
  assert.deepEqual(parsePlaceFilters({}, 'body'), { ok: true, value: { areas: null, minIntensity: null } });
  assert.deepEqual(parsePlaceFilters({ areas: ['17,390', '13'], minIntensity: '5 ' }, 'query'), {
    ok: true,
    value: { areas: ['13', '17', '390'], minIntensity: '5+' },
  });
  const areas = { ok: false, field: 'areas', message: placeFilterMessages.areas };
  const minIntensity = { ok: false, field: 'minIntensity', message: placeFilterMessages.minIntensity };
  for (const bad of [['48'], ['00'], ['1'], ['12345678'], ['17,390'], [17], 'x', Array(101).fill('17')])
    assert.deepEqual(parsePlaceFilters({ areas: bad }, 'body'), areas, JSON.stringify(bad));
  assert.deepEqual(parsePlaceFilters({ areas: '17,ab' }, 'query'), areas);
  for (const bad of ['5', '0', '8', 5, '5 ', '5弱'])
    assert.deepEqual(parsePlaceFilters({ minIntensity: bad }, 'body'), minIntensity, String(bad));
});
