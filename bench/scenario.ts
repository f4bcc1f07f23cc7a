/**
 * Scenario generation time (docs/sources-generated.md): the telegrams of an M7 sequence under
 * Tokyo and of an M7.8 offshore one (with its tsunami forecast), generated in memory; median of runs.
 * Run: node --import tsx bench/scenario.ts
 */
import { earthquakeScenario } from '../src/sources/scenario/sequence.ts';

const CASES = {
  'M7.1 under Tokyo (40 km)': { latitude: 35.7, longitude: 139.7, depthKm: 40, magnitude: 7.1 },
  'M7.8 off Fukushima (20 km)': { latitude: 37.6, longitude: 141.9, depthKm: 20, magnitude: 7.8 },
};
const RUNS = 20;

for (const [name, source] of Object.entries(CASES)) {
  const times: number[] = [];
  let telegrams = 0;
  let bytes = 0;
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    const scenario = earthquakeScenario({ ...source, asReal: false }, Date.now());
    times.push(performance.now() - t0);
    telegrams = scenario.telegrams.length;
    bytes = scenario.telegrams.reduce((n, t) => n + Buffer.byteLength(t.xml), 0);
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(RUNS / 2)]!;
  process.stdout.write(
    `${name}: ${telegrams} telegrams, ${(bytes / 1024).toFixed(0)} KiB; generation median ${median.toFixed(1)} ms, max ${times.at(-1)!.toFixed(1)} ms\n`,
  );
}
