/**
 * Replay's re-stamping rules (docs/sources.md "Replay"), on fixture XML and on a
 * bulletin-header telegram written here.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { replayItem, replayOrder, restamp, type Replayable } from '../../src/sources/replay.ts';
import { parseXml } from '../../src/telegrams/xml.ts';
import { jmaXmlRoot } from '../support/fixtures.ts';

const official = (name: string) => join(jmaXmlRoot, 'jma-official-samples', name);
/** VXSE52 (ReportDateTime 2010-01-25T16:18:00+09:00, OriginTime 16:15:00 of EventID 20100125161517). */
const VXSE52 = official('32-35_04_03_240613_VXSE52.xml');
const VXSE53 = official('32-35_04_04_240613_VXSE53.xml');
const NOW = Date.parse('2026-11-23T12:00:30Z');

function replayable(path: string): Replayable {
  const item = replayItem(path, readFileSync(path));
  assert.ok('kind' in item, JSON.stringify(item));
  return item;
}

/** Re-stamps a planned fixture with its bytes read again, as replay sends it. */
const stampFile = (item: Replayable, nowMs: number, eventIds: Map<string, string>, asTest: boolean) =>
  restamp(item, readFileSync(item.path), nowMs, eventIds, asTest);

describe('replay re-stamping', () => {
  it('moves every time by the same seconds, keeps offsets and precision, maps EventIDs once per run', () => {
    const item = replayable(VXSE52);
    const original = parseXml(readFileSync(item.path));
    const eventIds = new Map<string, string>();
    const stamped = parseXml(stampFile(item, NOW, eventIds, false));
    const at = (doc: typeof original, path: string) => doc.textAt(path)!.trim();
    assert.equal(Date.parse(at(stamped, 'Head/ReportDateTime')), NOW);
    assert.match(at(stamped, 'Head/ReportDateTime'), /\+09:00$/);
    assert.match(at(stamped, 'Control/DateTime'), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    for (const path of ['Control/DateTime', 'Head/TargetDateTime', 'Body/Earthquake/OriginTime']) {
      const shift = Date.parse(at(stamped, path)) - Date.parse(at(original, path));
      assert.equal(shift, NOW - Date.parse(at(original, 'Head/ReportDateTime')), path);
    }
    const newId = at(stamped, 'Head/EventID');
    assert.notEqual(newId, at(original, 'Head/EventID'));
    assert.match(newId, /^\d{14}$/);
    // The VXSE53 of the same event, re-stamped later in the same run, shares the new EventID.
    const later = parseXml(stampFile(replayable(VXSE53), NOW + 60_000, eventIds, false));
    assert.equal(at(later, 'Head/EventID'), newId);
    assert.equal(at(stamped, 'Control/Status'), '通常');
  });

  it('a tsunami report of two earthquakes moves both EventIDs, as the reports of each earthquake do', () => {
    // EventID `20151114055157 20151114061750`: the two earthquakes the forecast is issued for.
    const item = replayable(join(jmaXmlRoot, 'jma-official-samples-older', '38-39_02_04_191025_VTSE41.xml'));
    const eventIds = new Map<string, string>();
    const stamped = parseXml(stampFile(item, NOW, eventIds, false))
      .textAt('Head/EventID')!
      .trim();
    assert.deepEqual([...eventIds.keys()], ['20151114055157', '20151114061750']);
    assert.equal(stamped, [...eventIds.values()].join(' '));
    // The same earthquakes' own reports, re-stamped later in the run, share those new EventIDs.
    const later = new Map(eventIds);
    stampFile(item, NOW + 60_000, later, false);
    assert.deepEqual(later, eventIds);
  });

  it("an EventID that would meet another run's new one moves a second on, to a valid time", () => {
    // At 12:00:42Z the VXSE52's EventID 20100125161517 would become 20261123205759, taken.
    const eventIds = new Map([['20100125161516', '20261123205759']]);
    stampFile(replayable(VXSE52), Date.parse('2026-11-23T12:00:42Z'), eventIds, false);
    assert.equal(eventIds.get('20100125161517'), '20261123205800');
  });

  it('--as-test sets Control/Status to 訓練', () => {
    const stamped = parseXml(stampFile(replayable(VXSE52), NOW, new Map(), true));
    assert.equal(stamped.textAt('Control/Status'), '訓練');
  });

  it('a header telegram gets the header time of now; one without a header or time is skipped', () => {
    const an = Buffer.from('VZSA50 RJTD 011200\nSURFACE ANALYSIS\n', 'latin1');
    const item = replayItem('a.txt', an);
    assert.ok('kind' in item);
    assert.equal(
      restamp(item, an, NOW, new Map(), false).toString('latin1'),
      'VZSA50 RJTD 231200\nSURFACE ANALYSIS\n',
    );
    const binary = replayItem('b.bin', Buffer.from([0x42, 0x55, 0x46, 0x52, 0, 1, 2]));
    assert.deepEqual(binary, {
      path: 'b.bin',
      skipped: 'no time to re-stamp (A/N or binary without a JMA header)',
    });
    const broken = replayItem('c.xml', Buffer.from('<Report><Control>'));
    assert.ok('skipped' in broken);
  });

  it('orders by report time, then Control/DateTime', () => {
    const names = [
      '32-35_04_06_240613_VXSE53.xml',
      '32-35_04_03_240613_VXSE52.xml',
      '32-35_04_02_100831_VXSE51.xml',
    ];
    const ordered = replayOrder(names.map((n) => replayable(official(n))));
    assert.deepEqual(
      ordered.map((i) => i.path),
      [...names].reverse().map(official),
    );
  });
});
