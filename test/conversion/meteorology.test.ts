import assert from 'node:assert/strict';
import { test } from 'node:test';
import { codeName, joinedNotices, notes, warningAreas } from '../../src/conversion/meteorology.ts';
import { parseXmlElement } from '../../src/conversion/xml-element.ts';

test('codeName reads Code and Name trimmed; an absent element gives empty strings', () => {
  const area = parseXmlElement('<Area><Name> 東京都 </Name><Code>130000</Code></Area>');
  assert.deepEqual(codeName(area), { code: '130000', name: '東京都' });
  assert.deepEqual(codeName(undefined), { code: '', name: '' });
});

test('notes lists the Note texts; none → undefined', () => {
  assert.deepEqual(
    notes(parseXmlElement('<Attention><Note>土砂災害警戒</Note><Note>浸水警戒</Note></Attention>')),
    ['土砂災害警戒', '浸水警戒'],
  );
  assert.equal(notes(parseXmlElement('<Attention/>')), undefined);
  assert.equal(notes(undefined), undefined);
});

test('joinedNotices joins every non-empty Notice with a line feed', () => {
  const body = parseXmlElement('<Body><Notice>一つ目</Notice><Notice/><Notice>二つ目</Notice></Body>');
  assert.equal(joinedNotices(body), '一つ目\n二つ目');
  assert.equal(joinedNotices(parseXmlElement('<Body><Notice/></Body>')), undefined);
});

test('warningAreas: kinds and status per area, no-warning areas reduced to their condition, mark only when grouped', () => {
  const warning = parseXmlElement(`<Warning>
<Item><Kind><Name>大雨警報</Name><Code>03</Code><Status>発表</Status></Kind>
<Area><Name>東京地方</Name><Code>130010</Code></Area>
<ChangeStatus>警報・注意報種別に変化有</ChangeStatus><FullStatus>一部</FullStatus><EditingMark>1</EditingMark></Item>
<Item><Kind><Status>発表警報・注意報はなし</Status></Kind><Area><Name>伊豆諸島北部</Name><Code>130020</Code></Area></Item>
</Warning>`);
  const kind = (k: { text: string }) => k.text.length;
  assert.deepEqual(
    warningAreas(warning, true, (k) => codeName(k)),
    [
      {
        code: '130010',
        name: '東京地方',
        kinds: [{ code: '03', name: '大雨警報' }],
        changeStatus: '警報・注意報種別に変化有',
        fullStatus: '一部',
        editingMark: true,
      },
      { code: '130020', name: '伊豆諸島北部', kinds: [], condition: '発表警報・注意報はなし' },
    ],
  );
  const [city] = warningAreas(warning, false, kind) as Record<string, unknown>[];
  assert.equal('fullStatus' in city!, false);
  assert.equal('editingMark' in city!, false);
  assert.deepEqual(warningAreas(undefined, true, kind), []);
});
