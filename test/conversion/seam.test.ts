import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseIso6709 } from '../../src/conversion/coordinate.ts';
import { convertDepth, convertMagnitude } from '../../src/conversion/earthquake.ts';
import { convertHead } from '../../src/conversion/head.ts';
import { parseXmlElement } from '../../src/conversion/xml-element.ts';

test('ISO 6709 points in degrees, degrees-minutes and with heights', () => {
  assert.deepEqual(parseIso6709('+37.7+141.8-60000/'), {
    latitude: { text: '37.7˚N', value: '37.7000' },
    longitude: { text: '141.8˚E', value: '141.8000' },
    height: '-60000',
  });
  assert.deepEqual(parseIso6709('+4232.63+14050.35+733/'), {
    latitude: { text: "42˚32.63'N", value: '42.5438' },
    longitude: { text: "140˚50.35'E", value: '140.8392' },
    height: '733',
  });
  assert.deepEqual(parseIso6709('-05.1+151.3/'), {
    latitude: { text: '5.1˚S', value: '-5.1000' },
    longitude: { text: '151.3˚E', value: '151.3000' },
  });
  assert.deepEqual(parseIso6709('+2900+12405/')?.longitude, { text: "124˚05'E", value: '124.0833' });
  assert.equal(parseIso6709(''), undefined);
  assert.equal(parseIso6709('north'), undefined);
});

test('depth and magnitude exceptional forms', () => {
  const coordinate = (description: string, text: string) =>
    parseXmlElement(`<Coordinate description="${description}">${text}</Coordinate>`);
  assert.deepEqual(
    convertDepth(coordinate('北緯３７．７度　東経１４１．８度　深さ　６０ｋｍ', '+37.7+141.8-60000/')),
    {
      type: '深さ',
      unit: 'km',
      value: '60',
    },
  );
  assert.deepEqual(convertDepth(coordinate('北緯２３．０度　東経１２１．１度　ごく浅い', '+23.0+121.1+0/')), {
    type: '深さ',
    unit: 'km',
    value: '0',
    condition: 'ごく浅い',
  });
  assert.deepEqual(convertDepth(coordinate('北緯５６．７度　東経１６１．４度　深さ不明', '+56.7+161.4/')), {
    type: '深さ',
    unit: 'km',
    value: null,
    condition: '不明',
  });
  const magnitude = (xml: string) => convertMagnitude(parseXmlElement(xml));
  assert.deepEqual(magnitude('<Magnitude type="Mj" description="Ｍ７．１">7.1</Magnitude>'), {
    type: 'マグニチュード',
    unit: 'Mj',
    value: '7.1',
  });
  assert.deepEqual(
    magnitude('<Magnitude type="Mj" condition="不明" description="Ｍ８を超える巨大地震">NaN</Magnitude>'),
    { type: 'マグニチュード', unit: 'Mj', value: null, condition: 'Ｍ８を超える巨大地震' },
  );
});

test('the element view keeps attributes, order and untrimmed text, and decodes entities', () => {
  const root = parseXmlElement(
    '<Report xmlns:jmx_eb="x"><Body><jmx_eb:Visibility type="視程" unit="m"> 200</jmx_eb:Visibility>' +
      '<B>1</B><A>&lt;2&amp;</A><B>3</B></Body></Report>',
  );
  const body = root.child('Body');
  assert.equal(body?.text, '');
  assert.deepEqual(body?.child('Visibility')?.attrs, { type: '視程', unit: 'm' });
  assert.equal(body?.child('Visibility')?.text, ' 200');
  assert.deepEqual(
    body?.children.map((c) => c.name),
    ['Visibility', 'B', 'A', 'B'],
  );
  assert.deepEqual(
    body?.all('B').map((b) => b.text),
    ['1', '3'],
  );
  assert.equal(root.textAt('Body/A'), '<2&');
});

test('the common header: empty EventID and Serial are null, offices split, optional times only when present', () => {
  const report =
    parseXmlElement(`<Report><Control><Title>震源に関する情報</Title><DateTime>2021-02-13T14:11:44Z</DateTime>
<Status>通常</Status><EditorialOffice>気象庁本庁</EditorialOffice><PublishingOffice>北海道渡島総合振興局 函館地方気象台</PublishingOffice></Control>
<Head><Title>震源に関する情報</Title><ReportDateTime>2021-02-13T23:11:00+09:00</ReportDateTime><TargetDateTime>2021-02-13T23:11:00+09:00</TargetDateTime>
<EventID></EventID><InfoType>発表</InfoType><Serial/><InfoKind>震源速報</InfoKind><InfoKindVersion>1.0_1</InfoKindVersion>
<Headline><Text>
きょう１３日２３時０８分ころ、地震がありました。</Text></Headline></Head></Report>`);
  assert.deepEqual(convertHead(report, 'x'), {
    _originalId: 'x',
    type: '震源に関する情報',
    title: '震源に関する情報',
    status: '通常',
    infoType: '発表',
    editorialOffice: '気象庁本庁',
    publishingOffice: ['北海道渡島総合振興局', '函館地方気象台'],
    pressDateTime: '2021-02-13T14:11:44Z',
    reportDateTime: '2021-02-13T23:11:00+09:00',
    targetDateTime: '2021-02-13T23:11:00+09:00',
    eventId: null,
    serialNo: null,
    infoKind: '震源速報',
    infoKindVersion: '1.0_1',
    headline: '\nきょう１３日２３時０８分ころ、地震がありました。',
  });
});

test('the headline keeps line breaks and spaces as written; blank or missing is null', () => {
  const headline = (xml: string) =>
    convertHead(parseXmlElement(`<Report><Control/><Head>${xml}</Head></Report>`), 'x').headline;
  assert.equal(
    headline('<Headline><Text>\n　調査を開始しました。\n</Text></Headline>'),
    '\n　調査を開始しました。\n',
  );
  assert.equal(headline('<Headline><Text>地震がありました。</Text></Headline>'), '地震がありました。');
  assert.equal(headline('<Headline><Text>\n  </Text></Headline>'), null);
  assert.equal(headline('<Headline><Text/></Headline>'), null);
  assert.equal(headline(''), null);
});

test('the element view refuses what ingest refuses: malformed XML, a DOCTYPE, too deep a nesting', () => {
  assert.throws(() => parseXmlElement('<Report><Body></Report>'));
  assert.throws(() => parseXmlElement('<!DOCTYPE r [<!ENTITY a "x">]><Report>&a;</Report>'), /DOCTYPE/);
  assert.throws(() => parseXmlElement(`${'<a>'.repeat(60)}${'</a>'.repeat(60)}`), /deeper/);
  assert.equal(parseXmlElement(`${'<a>'.repeat(40)}x${'</a>'.repeat(40)}`).name, 'a');
});
