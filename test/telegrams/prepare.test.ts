import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { prepareTelegram, type IngestHints, type PreparedTelegram } from '../../src/telegrams/prepare.ts';
import { allXmlFixtures, fixture, fixtureIndex } from '../support/fixtures.ts';

const received = Date.parse('2026-03-11T09:51:02.345Z');
const sha384 = (b: Buffer) => createHash('sha384').update(b).digest('hex');

function prepared(raw: Buffer, hints: Partial<IngestHints> = {}): PreparedTelegram {
  const r = prepareTelegram(raw, { receivedTime: received, ...hints });
  if (!r.ok) assert.fail(`rejected: ${r.reason}`);
  return r.telegram;
}

function rejected(raw: Buffer, hints: Partial<IngestHints> = {}): string {
  const r = prepareTelegram(raw, { receivedTime: received, ...hints });
  assert.equal(r.ok, false, 'expected a rejection');
  return (r as { reason: string }).reason;
}

const fromFile = (path: string, hints: Partial<IngestHints> = {}) =>
  prepared(readFileSync(path), { fileName: basename(path), ...hints });

describe('prepareTelegram over every JMA XML fixture', () => {
  const index = fixtureIndex();

  it('the index covers every file on disk', () => {
    assert.equal(index.length, 353);
    assert.deepEqual(index.map((e) => e.path).sort(), allXmlFixtures().sort());
  });

  it('every file prepares with the type, class, test flag and infoType of the index', () => {
    for (const entry of index) {
      const raw = readFileSync(entry.path);
      const r = prepareTelegram(raw, { fileName: entry.file, receivedTime: received });
      assert.ok(r.ok, `${entry.file}: ${!r.ok && r.reason}`);
      const t = r.telegram;
      assert.equal(t.head.type, entry.type, entry.file);
      assert.equal(t.classification, entry.classification, entry.file);
      assert.equal(t.xmlReport!.control.title, entry.controlTitle, entry.file);
      assert.equal(t.xmlReport!.control.status, entry.status, entry.file);
      assert.equal(t.xmlReport!.head.infoType, entry.infoType, entry.file);
      assert.equal(t.head.test, entry.status !== '通常', entry.file);
      assert.equal(t.head.xml, true);
      assert.equal(t.format, 'xml');
      assert.equal(t.id, sha384(t.body), 'id is the SHA-384 of the delivered bytes');
      assert.equal(t.rawDigest, sha384(raw));
      assert.match(t.head.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:00\.000Z$/, 'minute precision');
      if (entry.type.startsWith('VGSK')) {
        assert.equal(t.compression, null);
        assert.equal(t.encoding, 'utf-8');
        assert.deepEqual(t.body, raw);
      } else {
        assert.equal(t.compression, 'gzip');
        assert.equal(t.encoding, 'base64');
        assert.deepEqual(gunzipSync(t.body), raw);
      }
    }
  });

  it('the author comes from the issuing office, and JMA headquarters stands in for an unlisted office', () => {
    const osaka = prepareTelegram(readFileSync(fixture('real', '20210216071046_0_VXSE53_270000.xml')), {
      receivedTime: received,
    });
    const wakkanai = prepareTelegram(readFileSync(fixture('official', '15_16_01_241031_VPWW56.xml')), {
      receivedTime: received,
    });
    assert.ok(wakkanai.ok && osaka.ok);
    assert.equal(wakkanai.telegram.xmlReport?.control.editorialOffice, '稚内地方気象台');
    assert.equal(wakkanai.telegram.head.author, 'RJTD');
    assert.equal(osaka.telegram.head.author, 'JPOS');
  });

  it('types from Control/Title match the file-name types wherever the title is unambiguous', () => {
    let byTitle = 0;
    for (const entry of index) {
      const r = prepareTelegram(readFileSync(entry.path), { author: 'JPXX', receivedTime: received });
      if (r.ok) {
        assert.equal(r.telegram.head.type, entry.type, entry.file);
        byTitle++;
      } else {
        assert.match(r.reason, /VPTW60–VPTW65/, entry.file);
        assert.match(entry.type, /^VPTW6/);
      }
    }
    assert.ok(byTitle > 330);
  });
});

describe('Control and Head extraction', () => {
  it('keeps the XML values verbatim and maps empty elements to null', () => {
    const t = fromFile(fixture('official', '01_01_01_091210_VGSK50.xml'));
    assert.deepEqual(t.xmlReport, {
      control: {
        title: '季節観測',
        dateTime: '2009-01-09T02:02:05Z',
        status: '通常',
        editorialOffice: '熊谷地方気象台',
        publishingOffice: '熊谷地方気象台',
      },
      head: {
        title: '季節観測',
        reportDateTime: '2009-01-09T11:00:00+09:00',
        targetDateTime: '2009-01-09T00:00:00+09:00',
        eventId: '20090109110000_初雪',
        serial: null,
        infoType: '発表',
        infoKind: '特殊気象報',
        infoKindVersion: '1.0_0',
        headline: null,
      },
    });
    assert.equal(t.head.author, 'JPTC');
    assert.equal(t.head.time, '2009-01-09T02:00:00.000Z', 'ReportDateTime in UTC, truncated to the minute');
    assert.equal(t.classification, 'telegram.observation');
  });

  it('cancellation: 取消 with its headline', () => {
    const t = fromFile(fixture('official', '32-35_06_06_100915_VXSE53.xml'));
    assert.equal(t.xmlReport!.head.infoType, '取消');
    assert.equal(t.xmlReport!.head.serial, '3');
    assert.equal(t.xmlReport!.head.eventId, '20080614084350');
    assert.equal(t.xmlReport!.head.headline, '震源・震度情報を取り消します。');
    assert.equal(t.head.designation, null);
  });

  it('訓練 telegrams are test telegrams', () => {
    const t = fromFile(fixture('official', '32-35_01_02_240613_VXSE52.xml'));
    assert.equal(t.xmlReport!.control.status, '訓練');
    assert.equal(t.head.test, true);
  });

  it('試験 telegrams are test telegrams', () => {
    const entry = fixtureIndex().find((e) => e.status === '試験');
    assert.ok(entry);
    assert.equal(fromFile(entry.path, { author: 'JPXX' }).head.test, true);
  });

  it('corrected reports get the CCA designation when the transport gives none', () => {
    const t = fromFile(fixture('official', '06_02_01_100514_VPTI50.xml'));
    assert.equal(t.xmlReport!.head.infoType, '訂正');
    assert.equal(t.head.designation, 'CCA');
  });

  it('delayed reports get the RRA designation (no fixture is 遅延: one is made from a real report)', () => {
    const raw = readFileSync(fixture('official', '32-35_01_03_100514_VXSE53.xml'), 'utf8');
    assert.ok(raw.includes('<InfoType>発表</InfoType>'));
    const delayed = Buffer.from(raw.replace('<InfoType>発表</InfoType>', '<InfoType>遅延</InfoType>'));
    const t = prepared(delayed, { fileName: '32-35_01_03_100514_VXSE53.xml' });
    assert.equal(t.xmlReport!.head.infoType, '遅延');
    assert.equal(t.head.designation, 'RRA');
  });

  it('optional Head members appear only when present', () => {
    const withDubious = allXmlFixtures().find((p) => readFileSync(p, 'utf8').includes('<TargetDTDubious>'))!;
    assert.equal(fromFile(withDubious, { author: 'JPXX' }).xmlReport!.head.targetDateTimeDubious, '頃');
    const flash = fromFile(fixture('official', '67_01_01_140927_VFVO56.xml'));
    assert.deepEqual(Object.keys(flash.xmlReport!.head), [
      'title',
      'reportDateTime',
      'targetDateTime',
      'targetDateTimeDubious',
      'eventId',
      'serial',
      'infoType',
      'infoKind',
      'infoKindVersion',
      'headline',
    ]);
    const early = fromFile(fixture('official', '72_01_01_190327_VPAW51.xml'));
    assert.equal(early.xmlReport!.head.validDateTime, '2017-12-09T14:30:00+09:00');
    const withDuration = allXmlFixtures().find((p) => readFileSync(p, 'utf8').includes('<TargetDuration>'))!;
    assert.match(fromFile(withDuration, { author: 'JPXX' }).xmlReport!.head.targetDuration!, /^P/);
  });

  it('real operational telegram: author from the office, time from ReportDateTime', () => {
    const t = fromFile(fixture('real', '20230410231623_04156158_VXSE53.xml'));
    assert.equal(t.head.type, 'VXSE53');
    assert.equal(t.head.author, 'RJTD');
    const report = Date.parse(t.xmlReport!.head.reportDateTime);
    assert.equal(t.head.time, new Date(report - (report % 60000)).toISOString());
    const osaka = fromFile(fixture('real', '20210216071046_0_VXSE53_270000.xml'));
    assert.equal(osaka.head.author, 'JPOS');
  });
});

describe('transport header', () => {
  const xml = readFileSync(fixture('official', '32-35_01_03_100514_VXSE53.xml'));

  it('gives type, author, time and designation; the delivered body excludes it', () => {
    const plain = fromFile(fixture('official', '32-35_01_03_100514_VXSE53.xml'));
    const framed = Buffer.concat([Buffer.from('\x01\r\r\nVXSE53 RJTD 091036 CCA\r\r\n'), xml]);
    const t = prepared(framed);
    assert.equal(t.head.type, 'VXSE53');
    assert.equal(t.head.author, 'RJTD');
    assert.equal(t.head.designation, 'CCA');
    // Header day 09 10:36 UTC resolved against ReportDateTime 2009-11-09T19:52+09:00.
    assert.equal(t.head.time, '2009-11-09T10:36:00.000Z');
    assert.equal(t.id, plain.id, 'same delivered body, same id');
    assert.notEqual(t.rawDigest, plain.rawDigest, 'different received bytes');
  });

  it('a header day in the previous month resolves to that month', () => {
    const t = prepared(Buffer.concat([Buffer.from('VXSE53 RJTD 312359\n'), xml]), { author: 'RJTD' });
    assert.equal(t.head.time, '2009-10-31T23:59:00.000Z');
  });

  it('a header day later in the month than the reception is of the month before, not in the future', () => {
    // Received on 2026-03-29 (no report time in an A/N telegram): day 31 is not yet this month's,
    // and day 11 of April would be nearer but has not come.
    const at = (header: string, receivedTime: number) => {
      const r = prepareTelegram(Buffer.from(`${header}\r\r\nAAXX 11001=\r\r\n`), { receivedTime });
      assert.ok(r.ok);
      return r.telegram.head.time;
    };
    const march29 = Date.parse('2026-03-29T12:00:00Z');
    assert.equal(at('SMJP01 RJTD 110000', march29), '2026-03-11T00:00:00.000Z');
    // February has no 31st: the latest 31st that has come is January's.
    assert.equal(at('SMJP01 RJTD 310000', march29), '2026-01-31T00:00:00.000Z');
    // Issued just after midnight of the next day, while the clock of the receiver is a minute behind.
    assert.equal(at('SMJP01 RJTD 010001', Date.parse('2026-03-31T23:59:00Z')), '2026-04-01T00:01:00.000Z');
  });

  it('explicit hints win over the header', () => {
    const t = prepared(Buffer.concat([Buffer.from('VXSE53 RJTD 091036\r\r\n'), xml]), {
      type: 'VXSE52',
      author: 'JPOS',
      time: '2020-01-02T03:04:00Z',
      designation: 'RRA',
      target: '47662',
    });
    assert.deepEqual(
      [t.head.type, t.head.author, t.head.time, t.head.designation, t.head.target],
      ['VXSE52', 'JPOS', '2020-01-02T03:04:00.000Z', 'RRA', '47662'],
    );
  });
});

describe('A/N and binary telegrams', () => {
  it('A/N with a JMA header is stored as utf-8 text, observation class, never test', () => {
    const raw = Buffer.from('SMJP01 RJTD 110000\r\r\nAAXX 11001\r\r\n47401 11450 81504 10012=\r\r\n');
    const t = prepared(raw);
    assert.equal(t.format, 'a/n');
    assert.equal(t.classification, 'telegram.observation');
    assert.equal(t.compression, null);
    assert.equal(t.encoding, 'utf-8');
    assert.equal(t.head.xml, false);
    assert.equal(t.head.test, false);
    assert.equal(t.xmlReport, null);
    assert.equal(t.head.time, '2026-03-11T00:00:00.000Z');
    assert.equal(t.body.toString(), 'AAXX 11001\r\r\n47401 11450 81504 10012=\r\r\n');
    assert.equal(t.id, sha384(t.body));
  });

  it('listed A/N codes keep their class', () => {
    const t = prepared(Buffer.from('WEPA60 RJTD 110000\r\r\nTSUNAMI BULLETIN\r\r\n'));
    assert.equal(t.classification, 'telegram.earthquake');
  });

  it('binary (BUFR) is delivered as base64', () => {
    const t = prepared(
      Buffer.concat([Buffer.from('IXAC41 RJTD 110000\r\r\n'), Buffer.from('BUFR\x00\x01\x02\xff', 'latin1')]),
    );
    assert.equal(t.format, 'binary');
    assert.equal(t.encoding, 'base64');
    assert.equal(t.compression, null);
    assert.equal(t.classification, 'telegram.earthquake');
  });

  it('non-XML without a header or type is rejected', () => {
    assert.match(rejected(Buffer.from('AAXX 11001 47401=')), /needs a JMA header or a type/);
    assert.match(
      rejected(Buffer.from('AAXX 11001 47401='), { type: 'SMJP01' }),
      /needs a JMA header or an author/,
    );
    assert.equal(
      prepared(Buffer.from('AAXX 11001 47401='), { type: 'SMJP01', author: 'RJTD' }).format,
      'a/n',
    );
  });
});

describe('rejections', () => {
  const head = (inner: string) =>
    Buffer.from(
      `<?xml version="1.0"?><Report><Control><Title>震度速報</Title><DateTime>2026-01-01T00:00:00Z</DateTime><Status>通常</Status><EditorialOffice>気象庁本庁</EditorialOffice><PublishingOffice>気象庁</PublishingOffice></Control>${inner}</Report>`,
    );
  const goodHead =
    '<Head><Title>震度速報</Title><ReportDateTime>2026-01-01T09:00:00+09:00</ReportDateTime><TargetDateTime>2026-01-01T09:00:00+09:00</TargetDateTime><EventID>1</EventID><InfoType>発表</InfoType><Serial/><InfoKind>震度速報</InfoKind><InfoKindVersion>1.0_0</InfoKindVersion><Headline><Text>a &amp; b &#x41;</Text></Headline></Head>';

  it('a minimal report is accepted and entities in text are decoded', () => {
    const t = prepared(head(goodHead));
    assert.equal(t.head.type, 'VXSE51');
    assert.equal(t.xmlReport!.head.headline, 'a & b A');
  });

  it('an empty TargetDateTime is kept as written, not a reason to lose the telegram', () => {
    // JMA's schema lets a report leave the base time empty (the JSON schema of VFVO52 has
    // `targetDateTime: string | null`); only a Head without the element is malformed.
    const empty = prepared(
      head(goodHead.replace(/<TargetDateTime>[^<]*<\/TargetDateTime>/, '<TargetDateTime/>')),
    );
    assert.equal(empty.xmlReport!.head.targetDateTime, '');
    assert.match(
      rejected(head(goodHead.replace(/<TargetDateTime>[^<]*<\/TargetDateTime>/, ''))),
      /missing Head\/TargetDateTime/,
    );
  });

  it('DOCTYPE and entity declarations', () => {
    const bomb = Buffer.from(
      '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;">]><Report>&b;</Report>',
    );
    assert.match(rejected(bomb), /DOCTYPE/);
  });

  it('too deep, malformed, not UTF-8, missing parts, unknown types', () => {
    assert.match(
      rejected(Buffer.from('<Report>' + '<a>'.repeat(60) + '</a>'.repeat(60) + '</Report>')),
      /malformed|depth|nested/i,
    );
    // The reason says where (line:column).
    assert.match(rejected(Buffer.from('<Report>\n<Control></Report>')), /^malformed XML: 2:\d+: /);
    assert.match(rejected(Buffer.from([0x3c, 0x52, 0xff, 0xfe, 0x3e])), /UTF-8/);
    assert.match(rejected(head('')), /missing Report\/Head/);
    assert.match(rejected(Buffer.from('<Other/>')), /root element is not Report/);
    assert.match(
      rejected(head(goodHead.replace('<InfoKind>震度速報</InfoKind>', ''))),
      /missing Head\/InfoKind/,
    );
    assert.match(
      rejected(
        Buffer.from(
          head(goodHead)
            .toString()
            .replace('<Title>震度速報</Title><DateTime', '<Title>謎の情報</Title><DateTime'),
        ),
      ),
      /no data type code is known for Control\/Title "謎の情報"/,
    );
    assert.match(rejected(head(goodHead), { type: 'ABCD12' }), /belongs to no known classification/);
    assert.match(rejected(head(goodHead), { type: 'vxse53' }), /invalid type/);
    assert.match(rejected(head(goodHead), { time: 'yesterday' }), /invalid time/);
    assert.match(rejected(Buffer.alloc(0)), /empty/);
    assert.match(rejected(Buffer.from('VXSE53 RJTD 110000\r\r\n')), /no body/);
  });
});
