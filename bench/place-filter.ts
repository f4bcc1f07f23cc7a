// Cost per telegram of a stream filtered by place and strength against an unfiltered one, in the
// same run (docs/realtime.md "Filters by place and strength"). In process, no database: what differs
// between the two is the match of each telegram against its group's filter (the `data` message and
// its frame are built once per telegram whatever the filters), so each round delivers a stream of
// real telegrams through the per-telegram work of the delivery — match, `data` message, frame — for
// one group with `areas: ["17"]` and `minIntensity: "5-"` over every fixture, and for the reference, an
// unfiltered group over a stream of the telegrams that filter passes; figures per telegram delivered.
// Also: what extracting the facts adds to preparing a telegram at ingest.
//
//   node --import tsx bench/place-filter.ts [--rounds 9] [--repeat 200]
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { parseXml } from '../src/telegrams/xml.ts';
import { compileFilter, matches, type DeliveryFilter } from '../src/realtime/filter.ts';
import { dataMessage } from '../src/realtime/protocol.ts';
import { textFrame } from '../src/realtime/frame.ts';
import { extractFacts } from '../src/telegrams/facts.ts';
import { committedRecord } from '../src/telegrams/store.ts';
import { prepareForIngest } from '../src/telegrams/prepare.ts';
import type { TelegramRecord } from '../src/telegrams/record.ts';
import { allXmlFixtures } from '../test/support/fixtures.ts';
import { emitResult } from './result.ts';
import { median } from './stats.ts';

const { values } = parseArgs({
  options: { rounds: { type: 'string', default: '9' }, repeat: { type: 'string', default: '200' } },
});
const rounds = Number(values.rounds);
const repeat = Number(values.repeat);

// Every XML fixture, as ingest would hand it to the delivery (raw mode: the XML records).
const files = allXmlFixtures();
const records: TelegramRecord[] = [];
const raws: { raw: Buffer; type: string }[] = [];
for (const [i, file] of files.entries()) {
  const raw = readFileSync(file);
  const ready = prepareForIngest(raw, { receivedTime: Date.now() });
  if (!ready.ok) continue;
  records.push(committedRecord(ready.telegram, i + 1));
  raws.push({ raw, type: ready.telegram.head.type });
}
const base: DeliveryFilter = {
  classifications: [...new Set(records.map((r) => r.classification))],
  types: null,
  test: 'including',
  formatMode: 'raw',
};
const unfiltered = compileFilter(base);
const filtered = compileFilter({ ...base, areas: ['17'], minIntensity: '5-' });

/**
 * ns per telegram delivered to one group: every telegram of the stream matched, and for a match the
 * message and frame.
 */
function deliver(
  filter: typeof unfiltered,
  stream: readonly TelegramRecord[],
): { nsPerTelegram: number; delivered: number } {
  let delivered = 0;
  const start = process.hrtime.bigint();
  for (let r = 0; r < repeat; r++) {
    for (const record of stream) {
      if (!matches(filter, record)) continue;
      // Built once per telegram in the server: counted for both, so that only the match differs.
      delivered += textFrame(dataMessage(record, [])).length > 0 ? 1 : 0;
    }
  }
  const ns = Number(process.hrtime.bigint() - start);
  // Per telegram the connection receives: a filtered stream also pays for the telegrams it drops.
  return { nsPerTelegram: ns / delivered, delivered: delivered / repeat };
}

/** ns per telegram of matching alone (the only per-group work that the filters change). */
function matchOnly(filter: typeof unfiltered): number {
  let n = 0;
  const start = process.hrtime.bigint();
  for (let r = 0; r < repeat * 10; r++) for (const record of records) if (matches(filter, record)) n++;
  const ns = Number(process.hrtime.bigint() - start);
  return n >= 0 ? ns / (repeat * 10 * records.length) : 0;
}

const passing = records.filter((r) => matches(filtered, r));
const matchRef: number[] = [];
const matchFiltered: number[] = [];
const sendRef: number[] = [];
const sendFiltered: number[] = [];
const streamRef: number[] = [];
const streamFiltered: number[] = [];
for (let round = 0; round < rounds; round++) {
  matchRef.push(matchOnly(unfiltered));
  matchFiltered.push(matchOnly(filtered));
  // Reference: the same telegrams delivered unfiltered, from a stream that holds only them. The
  // two alternate which goes first, so that neither always pays for the garbage of the other.
  const sendPair = [
    () => sendRef.push(deliver(unfiltered, passing).nsPerTelegram),
    () => sendFiltered.push(deliver(filtered, records).nsPerTelegram),
  ];
  if (round % 2 === 1) sendPair.reverse();
  for (const send of sendPair) send();
  // The whole stream, per telegram committed: what one group of each kind costs the server.
  const all = deliver(unfiltered, records);
  streamRef.push((all.nsPerTelegram * all.delivered) / records.length);
  const some = deliver(filtered, records);
  streamFiltered.push((some.nsPerTelegram * some.delivered) / records.length);
}

// Ingest: parse + facts against parse alone, per telegram.
const parseNs: number[] = [];
const factsNs: number[] = [];
for (let round = 0; round < rounds; round++) {
  const docs = raws.map(({ raw }) => raw);
  let start = process.hrtime.bigint();
  const parsed = docs.map((d) => parseXml(d));
  parseNs.push(Number(process.hrtime.bigint() - start) / docs.length);
  start = process.hrtime.bigint();
  parsed.forEach((doc, i) => extractFacts(raws[i]!.type, doc));
  factsNs.push(Number(process.hrtime.bigint() - start) / docs.length);
}

const r = {
  telegrams: records.length,
  passingFiltered: passing.length,
  matchNsUnfiltered: median(matchRef),
  matchNsFiltered: median(matchFiltered),
  deliverNsUnfiltered: median(sendRef),
  deliverNsFiltered: median(sendFiltered),
  streamNsUnfiltered: median(streamRef),
  streamNsFiltered: median(streamFiltered),
  parseNsPerTelegram: median(parseNs),
  factsNsPerTelegram: median(factsNs),
};
console.log(
  `telegrams in the stream: ${r.telegrams} (XML fixtures); passing areas 17 + minIntensity 5-: ${r.passingFiltered}`,
);
console.log(
  `match per telegram and group, median of ${rounds}: unfiltered ${r.matchNsUnfiltered.toFixed(1)} ns, filtered ${r.matchNsFiltered.toFixed(1)} ns (${(r.matchNsFiltered / r.matchNsUnfiltered).toFixed(2)}×)`,
);
console.log(
  `stream per telegram delivered (every telegram matched, data message + frame of what passes), median: unfiltered ${(r.deliverNsUnfiltered / 1000).toFixed(2)} µs, filtered ${(r.deliverNsFiltered / 1000).toFixed(2)} µs (${(r.deliverNsFiltered / r.deliverNsUnfiltered).toFixed(3)}×)`,
);
console.log(
  `stream per telegram committed (the group's whole work), median: unfiltered ${(r.streamNsUnfiltered / 1000).toFixed(2)} µs, filtered ${(r.streamNsFiltered / 1000).toFixed(2)} µs (${(r.streamNsFiltered / r.streamNsUnfiltered).toFixed(3)}×)`,
);
console.log(
  `ingest per telegram, median: parse ${(r.parseNsPerTelegram / 1000).toFixed(1)} µs, facts extraction ${(r.factsNsPerTelegram / 1000).toFixed(1)} µs`,
);
emitResult('place-filter', r);
