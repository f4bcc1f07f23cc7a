// JSON conversion time per schema on the fixtures: every fixture XML whose type has a converter is
// converted many times, from its text (parse → convert → schema check) and from the document already
// parsed (convert → schema check: what ingest adds, since it parses each XML once for Control/Head
// and the conversion). Prints median and p99 per document, the largest document's medians, and the
// longest event-loop stall seen while converting.
// Usage: node --import tsx bench/conversion.ts [rounds]
import { readFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { convertTelegram } from '../src/conversion/convert.ts';
import { converterFor } from '../src/conversion/registry.ts';
import { parseXmlElement } from '../src/conversion/xml-element.ts';
import { fixtureIndex } from '../test/support/fixtures.ts';
import { emitResult } from './result.ts';
import { median, percentile } from './stats.ts';

const rounds = Number(process.argv[2] ?? 20);

interface Sample {
  type: string;
  xml: string;
  bytes: number;
  times: number[];
  parsedTimes: number[];
}
const bySchema = new Map<string, Sample[]>();
let failures = 0;
for (const entry of fixtureIndex()) {
  const converter = converterFor(entry.type);
  if (!converter) continue;
  const xml = readFileSync(entry.path, 'utf8');
  const samples = bySchema.get(converter.schema.type) ?? [];
  bySchema.set(converter.schema.type, samples);
  samples.push({
    type: entry.type,
    xml,
    bytes: Buffer.byteLength(xml),
    times: [],
    parsedTimes: [],
  });
  const outcome = convertTelegram(xml, entry.type, 'x'.repeat(96));
  if (!outcome?.ok) failures++;
}

const stall = monitorEventLoopDelay({ resolution: 1 });
stall.enable();
for (let round = 0; round < rounds; round++) {
  for (const [, samples] of bySchema) {
    for (const sample of samples) {
      const t0 = performance.now();
      convertTelegram(sample.xml, sample.type, 'x'.repeat(96));
      sample.times.push(performance.now() - t0);
      // Let the event loop turn after each conversion so the stall monitor sees each one on its own.
      await new Promise((resolve) => setImmediate(resolve));
      // Parsed afresh (untimed, its own turn) rather than kept: holding every fixture's tree would
      // make the collector's pauses, and so the stalls, longer than in a server.
      const parsed = parseXmlElement(sample.xml);
      await new Promise((resolve) => setImmediate(resolve));
      const t1 = performance.now();
      convertTelegram(parsed, sample.type, 'x'.repeat(96));
      sample.parsedTimes.push(performance.now() - t1);
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
}
stall.disable();

console.log(`conversion per document, ${rounds} rounds (ms)`);
console.log(
  'schema | documents | median | p99 | largest document (bytes) | its median | its median, parsed | median, parsed',
);
for (const [schema, samples] of [...bySchema].sort()) {
  const all = samples.flatMap((s) => s.times);
  const largest = samples.reduce((a, b) => (b.bytes > a.bytes ? b : a));
  emitResult('conversion', {
    schema,
    documents: samples.length,
    median: percentile(all, 50),
    p99: percentile(all, 99),
    largestBytes: largest.bytes,
    largestMedian: percentile(largest.times, 50),
    largestParsedMedian: percentile(largest.parsedTimes, 50),
    parsedMedian: median(samples.flatMap((s) => s.parsedTimes)),
  });
  console.log(
    `${schema} | ${samples.length} | ${percentile(all, 50).toFixed(3)} | ${percentile(all, 99).toFixed(3)} | ` +
      `${largest.bytes} | ${percentile(largest.times, 50).toFixed(3)} | ` +
      `${percentile(largest.parsedTimes, 50).toFixed(3)} | ${median(samples.flatMap((s) => s.parsedTimes)).toFixed(3)}`,
  );
}
// A conversion is synchronous: its own duration is the time it holds the event loop.
const all = [...bySchema.values()].flat();
const longest = (pick: (s: Sample) => number[]) => Math.max(...all.flatMap(pick));
console.log(`longest event-loop stall while converting: ${(stall.max / 1e6).toFixed(1)} ms`);
console.log(
  `longest single conversion: ${longest((s) => s.times).toFixed(1)} ms from the text, ` +
    `${longest((s) => s.parsedTimes).toFixed(1)} ms on the parsed document`,
);
console.log(`documents that failed to convert or validate: ${failures}`);
emitResult('conversion-summary', {
  longestStall: stall.max / 1e6,
  longestFromText: longest((s) => s.times),
  longestParsed: longest((s) => s.parsedTimes),
  failures,
});
