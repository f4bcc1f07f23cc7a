// Line and branch coverage of src/ from V8's own counters (NODE_V8_COVERAGE), for scripts/run-tests.js.
// Node 20's `--experimental-test-coverage` cannot report bundled files (it fails on their source
// maps), and every test runs bundled (scripts/build-tests.js), so the raw counts that every process
// writes — test files, `namazu` processes the tests start, their workers — are mapped back to the
// sources here through the source maps Node records beside them.
//
// A line counts when code was generated for it (it has a source-map mapping) and is covered when
// one of its mappings ran in any process. A branch is one of V8's counted ranges (a function body,
// either arm of a condition, a loop body, the code after an early return: what c8 reports as
// branches), keyed by where it starts and ends in the source, covered when it ran in any process.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const VLQ_DIGIT = new Int8Array(128).fill(-1);
for (let i = 0; i < BASE64.length; i++) VLQ_DIGIT[BASE64.charCodeAt(i)] = i;

/**
 * The mappings of a script into src/: for each mapping, in generated order, its offset in the
 * script (as V8 counts them) and its source position, or source -1 outside src/.
 */
function decodeMappings(scriptUrl, entry, sourceIndex) {
  const map = entry.data;
  const lineStarts = [0];
  for (const length of entry.lineLengths) lineStarts.push(lineStarts.at(-1) + length + 1);
  const base = new URL(map.sourceRoot ?? '', scriptUrl);
  const sources = map.sources.map((s) => sourceIndex(new URL(s, base)));
  const offsets = [];
  const files = [];
  const lines = [];
  const columns = [];
  const text = map.mappings;
  const fields = [0, 0, 0, 0, 0];
  let generatedLine = 0;
  let generatedColumn = 0;
  let source = 0;
  let line = 0;
  let column = 0;
  for (let i = 0; i < text.length;) {
    const c = text.charCodeAt(i);
    if (c === 59 /* ; */) {
      generatedLine++;
      generatedColumn = 0;
      i++;
      continue;
    }
    if (c === 44 /* , */) {
      i++;
      continue;
    }
    let count = 0;
    while (i < text.length && text.charCodeAt(i) !== 59 && text.charCodeAt(i) !== 44) {
      let value = 0;
      let shift = 0;
      let digit;
      do {
        digit = VLQ_DIGIT[text.charCodeAt(i++)];
        value += (digit & 31) * 2 ** shift;
        shift += 5;
      } while (digit & 32);
      fields[count++] = value % 2 ? -(value - 1) / 2 : value / 2;
    }
    generatedColumn += fields[0];
    if (count < 4) continue;
    source += fields[1];
    line += fields[2];
    column += fields[3];
    offsets.push(lineStarts[generatedLine] + generatedColumn);
    files.push(sources[source] ?? -1);
    lines.push(line);
    columns.push(column);
  }
  return { offsets, files, lines, columns };
}

/** For each mapping, the count of the innermost range of `functions` that holds it (-1: none). */
function countsAt(offsets, functions) {
  const ranges = functions.flatMap((f) => f.ranges);
  ranges.sort((a, b) => a.startOffset - b.startOffset || b.endOffset - a.endOffset);
  const counts = new Float64Array(offsets.length);
  const open = [];
  let next = 0;
  for (let m = 0; m < offsets.length; m++) {
    const at = offsets[m];
    while (next < ranges.length && ranges[next].startOffset <= at) {
      while (open.length > 0 && open.at(-1).endOffset <= ranges[next].startOffset) open.pop();
      open.push(ranges[next++]);
    }
    while (open.length > 0 && open.at(-1).endOffset <= at) open.pop();
    counts[m] = open.length > 0 ? open.at(-1).count : -1;
  }
  return counts;
}

/** A branch's key from the mappings it spans: first * SPAN + last (a script has fewer mappings). */
const SPAN = 2 ** 26;

/** Index of the first mapping at or after `offset`. */
function firstMappingFrom(offsets, offset) {
  let low = 0;
  let high = offsets.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (offsets[mid] < offset) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** Source file names and their numbers, in the order first seen. */
function fileTable() {
  const fileNames = [];
  const ids = new Map();
  const idOf = (name) => {
    if (!ids.has(name)) {
      ids.set(name, fileNames.length);
      fileNames.push(name);
    }
    return ids.get(name);
  };
  return { fileNames, idOf };
}

/**
 * What the raw coverage files `paths` say about the scripts they name: { fileNames, scripts }, where
 * `fileNames` are the source files under `root`/src (relative to `root`) that the scripts' mappings
 * index. Per script (a bundle's chunk, shared by every process that loaded it): its mappings, and
 * what the processes did there, merged as each raw file is read: per mapping, whether its innermost
 * range was counted (1) and ran (2); per branch, keyed by the mappings it spans, whether it ran.
 * Typed arrays and number keys: a whole run writes over a thousand raw files, each with the
 * mappings of every chunk it loaded, and source positions are only made once at the end.
 */
export function readRawCoverage(paths, root) {
  const srcUrl = pathToFileURL(`${root}${sep}src${sep}`).href;
  const { fileNames, idOf } = fileTable();
  const sourceIndex = (url) =>
    url.href.startsWith(srcUrl) && existsSync(url) ? idOf(relative(root, fileURLToPath(url))) : -1;
  const scripts = new Map();
  for (const path of paths) {
    const raw = JSON.parse(readFileSync(path, 'utf8'));
    const maps = raw['source-map-cache'] ?? {};
    for (const script of raw.result) {
      const entry = maps[script.url];
      // Packages ship maps of their own sources, which are not ours.
      if (!entry?.data?.mappings || script.url.includes('/node_modules/')) continue;
      let seen = scripts.get(script.url);
      if (!seen) {
        const mappings = decodeMappings(script.url, entry, sourceIndex);
        seen = { mappings, ran: new Uint8Array(mappings.offsets.length), spans: new Map() };
        scripts.set(script.url, seen);
      }
      const { offsets, files } = seen.mappings;
      const counts = countsAt(offsets, script.functions);
      for (let m = 0; m < offsets.length; m++) {
        if (files[m] < 0 || counts[m] < 0) continue;
        const state = counts[m] > 0 ? 2 : 1;
        if (state > seen.ran[m]) seen.ran[m] = state;
      }
      for (const fn of script.functions) {
        for (const range of fn.ranges) {
          const first = firstMappingFrom(offsets, range.startOffset);
          const last = firstMappingFrom(offsets, range.endOffset) - 1;
          if (first > last || files[first] < 0 || files[first] !== files[last]) continue;
          const span = first * SPAN + last;
          if (range.count > 0) seen.spans.set(span, true);
          else if (!seen.spans.has(span)) seen.spans.set(span, false);
        }
      }
    }
  }
  return { fileNames, scripts };
}

/** Reads `paths` in a worker thread (scripts/coverage-worker.js). */
function readInWorker(paths, root) {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./coverage-worker.js', import.meta.url), {
      workerData: { paths, root },
    });
    worker.once('message', resolve);
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`coverage worker exited with code ${code}`)));
  });
}

/**
 * Reads every raw coverage file of `rawDir` and returns, per source file under `root`/src (path
 * relative to `root`), its lines and branches: { file: { lines: [covered, total], branches: [covered, total] } }.
 * The files are read in a worker per core (reading them is most of the time: gigabytes of JSON
 * after a whole run), and what the workers found merged here.
 */
export async function summariseCoverage(rawDir, root) {
  const raw = readdirSync(rawDir)
    .filter((name) => name.endsWith('.json'))
    .map((name) => `${rawDir}/${name}`);
  const workers = Math.min(availableParallelism(), raw.length);
  const parts = Array.from({ length: workers }, (_, i) => raw.filter((_path, at) => at % workers === i));
  const { fileNames, idOf } = fileTable();
  const scripts = new Map();
  for (const part of await Promise.all(parts.map((paths) => readInWorker(paths, root)))) {
    const ids = part.fileNames.map(idOf);
    for (const [url, found] of part.scripts) {
      const seen = scripts.get(url);
      if (!seen) {
        // Kept: its mappings' file numbers become the merged table's.
        const files = found.mappings.files;
        for (let m = 0; m < files.length; m++) if (files[m] >= 0) files[m] = ids[files[m]];
        scripts.set(url, found);
        continue;
      }
      for (let m = 0; m < seen.ran.length; m++) if (found.ran[m] > seen.ran[m]) seen.ran[m] = found.ran[m];
      for (const [span, ran] of found.spans) if (ran || !seen.spans.has(span)) seen.spans.set(span, ran);
    }
  }
  // Per file: source position (line * 2^20 + column) -> ran anywhere; branch key -> ran anywhere.
  const positions = [];
  const branches = [];
  const mark = (table, file, key, ran) => {
    table[file] ??= new Map();
    if (ran || !table[file].has(key)) table[file].set(key, ran || (table[file].get(key) ?? false));
  };
  for (const { mappings, ran, spans } of scripts.values()) {
    const { files, lines, columns } = mappings;
    for (let m = 0; m < ran.length; m++) {
      if (ran[m] > 0) mark(positions, files[m], lines[m] * 2 ** 20 + columns[m], ran[m] === 2);
    }
    for (const [span, spanRan] of spans) {
      const first = Math.floor(span / SPAN);
      const last = span % SPAN;
      // Keyed by its first position, whose count stands for it where V8 left the range out
      // (a range that ran as often as the one around it is not reported).
      const key = `${lines[first] * 2 ** 20 + columns[first]}-${lines[last]}:${columns[last]}`;
      mark(branches, files[first], key, spanRan);
    }
  }
  const summary = {};
  fileNames.forEach((name, file) => {
    const lineRan = new Map();
    for (const [position, ran] of positions[file] ?? []) {
      const line = Math.floor(position / 2 ** 20);
      lineRan.set(line, ran || (lineRan.get(line) ?? false));
    }
    const ranBranches = [...(branches[file] ?? new Map())].map(
      ([key, ran]) => ran || positions[file]?.get(Number(key.split('-')[0])) === true,
    );
    summary[name] = {
      lines: [[...lineRan.values()].filter(Boolean).length, lineRan.size],
      branches: [ranBranches.filter(Boolean).length, ranBranches.length],
    };
  });
  return summary;
}

/** Covered and total lines and branches over every file of `summary`. */
export function totalCoverage(summary) {
  const total = { lines: [0, 0], branches: [0, 0] };
  for (const { lines, branches } of Object.values(summary)) {
    for (const [key, [covered, all]] of [
      ['lines', lines],
      ['branches', branches],
    ]) {
      total[key][0] += covered;
      total[key][1] += all;
    }
  }
  return total;
}

export const percent = ([covered, total]) => (total === 0 ? 100 : (100 * covered) / total);

/** The report printed after the tests: totals, then the `least` least-covered files by lines. */
export function formatCoverage(summary, least = 15) {
  const row = (name, { lines, branches }) =>
    `# ${percent(lines).toFixed(1).padStart(6)} % ${`(${lines[0]}/${lines[1]})`.padEnd(14)}` +
    `${percent(branches).toFixed(1).padStart(6)} % ${`(${branches[0]}/${branches[1]})`.padEnd(14)}${name}`;
  const files = Object.entries(summary).sort(
    ([a, x], [b, y]) =>
      percent(x.lines) - percent(y.lines) || percent(x.branches) - percent(y.branches) || (a < b ? -1 : 1),
  );
  return [
    `# coverage of src/ (${files.length} files)       lines                 branches`,
    row('all files', totalCoverage(summary)),
    `# least covered:`,
    ...files.slice(0, least).map(([name, counts]) => row(name, counts)),
  ].join('\n');
}
