/**
 * The earthquake section as the live view and the event page render it: the intensity legend in
 * JMA's order and each language's names, the stations without a position collapsed and capped,
 * times in Japan time with the zone named.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatTime } from '../../../src/console/layout.ts';
import { quakeSection, UNPLACED_SHOWN } from '../../../src/console/live/pages.ts';
import type { QuakeView, StationIntensity } from '../../../src/console/live/quake.ts';
import type { TelegramSummary } from '../../../src/telegrams/store.ts';

function quake(stations: StationIntensity[]): QuakeView {
  return {
    event: {
      id: 1,
      type: 'normal',
      eventId: '20240101161010',
      originTime: '2024-01-01T16:10:00+09:00',
      arrivalTime: '2024-01-01T16:10:00+09:00',
      maxInt: '6+',
    },
    latitude: null,
    longitude: null,
    point: null,
    prefectures: [{ code: '17', name: '石川県', maxInt: '6+' }],
    regions: [],
    stations,
    telegrams: [],
    training: false,
  };
}

/** The part of a stored report the section reads: its type and JMA's InfoType. */
const report = (type: string, infoType: string) =>
  ({ head: { type }, xmlReport: { head: { infoType } } }) as unknown as TelegramSummary;

const station = (i: number, int: string, placed = false): StationIntensity => ({
  code: String(1700000 + i),
  name: `観測点${i}`,
  int,
  point: placed ? { x: 10, y: 10 } : null,
});

const legendOf = (html: string) =>
  [...html.matchAll(/<ul class="legend"[^>]*>(.*?)<\/ul>/gs)][0]![1]!
    .split('</li>')
    .map((li) => li.replace(/<[^>]+>/g, '').trim())
    .filter(Boolean);

test('the legend reads 1 to 7 in order, in Japanese as 5弱 5強 6弱 6強', () => {
  const html = String(quakeSection(quake([station(1, '3', true)]), 'ja', '最新の地震'));
  assert.deepEqual(legendOf(html), [
    '震度1',
    '震度2',
    '震度3',
    '震度4',
    '震度5弱',
    '震度5強',
    '震度6弱',
    '震度6強',
    '震度7',
    '震度５弱以上未入電',
  ]);
  assert.match(html, /<dd id="quake-maxint">6強<\/dd>/);
  assert.match(html, /石川県 <span class="sr">最大震度<\/span> <strong>6強<\/strong>/);
  const en = String(quakeSection(quake([station(1, '3', true)]), 'en', 'Latest earthquake'));
  assert.deepEqual(legendOf(en).slice(3, 9), [
    'Intensity 4',
    'Intensity 5 Lower',
    'Intensity 5 Upper',
    'Intensity 6 Lower',
    'Intensity 6 Upper',
    'Intensity 7',
  ]);
});

test('stations without a position are collapsed, capped and counted', () => {
  const many = Array.from({ length: UNPLACED_SHOWN + 37 }, (_, i) => station(i, '1'));
  const html = String(quakeSection(quake(many), 'en', 'Latest earthquake'));
  assert.match(
    html,
    new RegExp(
      `<details id="unplaced"><summary>Stations without a known position \\(${many.length}\\)</summary>`,
    ),
  );
  assert.equal([...html.matchAll(/<li data-code="17\d+" data-int=/g)].length, UNPLACED_SHOWN);
  assert.match(html, /<p class="muted" id="unplaced-more">37 more stations/);
  const few = String(quakeSection(quake(many.slice(0, 3)), 'en', 'Latest earthquake'));
  assert.doesNotMatch(few, /unplaced-more/);
});

test('times are Japan time with the zone named', () => {
  assert.equal(formatTime(new Date('2026-11-27T15:30:45Z')), '2026-11-28 00:30 JST');
  assert.equal(formatTime(new Date('2026-11-27T15:30:45Z'), { seconds: true }), '2026-11-28 00:30:45 JST');
  assert.equal(formatTime(null), '—');
  const html = String(quakeSection(quake([]), 'en', 'Latest earthquake'));
  assert.match(html, /<time datetime="2024-01-01T16:10:00\+09:00">2024-01-01 16:10:00 JST<\/time>/);
});

test('a distant earthquake, which JMA reports without intensities, says none was observed, not "unknown"', () => {
  const distant = quake([]);
  distant.event = { ...distant.event, type: 'distant', maxInt: null };
  distant.prefectures = [];
  assert.match(
    String(quakeSection(distant, 'en', 'Latest earthquake')),
    /<dd id="quake-maxint">none observed \(a distant earthquake\)<\/dd>/,
  );
  assert.match(
    String(quakeSection(distant, 'ja', '最新の地震')),
    /<dd id="quake-maxint">観測なし（遠地地震）<\/dd>/,
  );
  // A domestic event with no intensity yet (a 震源に関する情報 alone) still says it is not known.
  const notYet = quake([]);
  notYet.event = { ...notYet.event, maxInt: null };
  notYet.telegrams = [report('VXSE52', '発表')];
  assert.match(
    String(quakeSection(notYet, 'en', 'Latest earthquake')),
    /<dd id="quake-maxint">unknown<\/dd>/,
  );
  // A 震源・震度に関する情報 without intensities (an early warning issued, no intensity of 1 or more
  // observed): production's page for the schema names this case; none was observed.
  const noneObserved = { ...notYet, telegrams: [report('VXSE52', '発表'), report('VXSE53', '発表')] };
  assert.match(
    String(quakeSection(noneObserved, 'en', 'Latest earthquake')),
    /<dd id="quake-maxint">none of 1 or more observed<\/dd>/,
  );
  assert.match(
    String(quakeSection(noneObserved, 'ja', '最新の地震')),
    /<dd id="quake-maxint">震度1以上の観測なし<\/dd>/,
  );
  // A withdrawn one (取消) is no report.
  const withdrawn = { ...notYet, telegrams: [report('VXSE52', '発表'), report('VXSE53', '取消')] };
  assert.match(
    String(quakeSection(withdrawn, 'en', 'Latest earthquake')),
    /<dd id="quake-maxint">unknown<\/dd>/,
  );
});
