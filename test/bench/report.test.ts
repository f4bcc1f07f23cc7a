/**
 * bench/report.ts writes bench/REPORT.md anew from a run, and carries over word for word the part
 * recorded by hand between its marks, with the charts that part shows.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { KEPT_BEGIN, KEPT_END, writeReport } from '../../bench/report.ts';

const machine = {
  cpus: 2,
  cpuModel: 'test',
  memoryGiB: 1,
  node: 'v20',
  kernel: '6',
  load: { min: 0, mean: 0, max: 0 },
  database: 'PGlite',
};
const run = (output: string) => ({
  started: new Date('2026-11-28T10:00:00Z'),
  finished: new Date('2026-11-28T10:10:00Z'),
  machine,
  settings: '--runs 1',
  outcomes: [{ name: 'startup', title: 'Startup', status: 'ok' as const, results: [], output, seconds: 1 }],
});

function withRoot(body: (root: string, report: string, charts: string) => void): void {
  const root = mkdtempSync(join(tmpdir(), 'namazu-report-'));
  try {
    const charts = join(root, 'bench', 'report');
    mkdirSync(charts, { recursive: true });
    body(root, join(root, 'bench', 'REPORT.md'), charts);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

test('the kept part and the charts it shows survive a new report; the rest is written anew', () => {
  withRoot((root, report, charts) => {
    const kept = [
      KEPT_BEGIN,
      '',
      '## By hand',
      '',
      '| a | b |',
      '|---|---|',
      '| 1 | 2 |',
      '',
      '![c](report/hand.svg)',
      KEPT_END,
    ].join('\n');
    writeFileSync(report, `# Old\n\nfirst run's words\n\n${kept}\n\nmore old words\n`);
    writeFileSync(join(charts, 'hand.svg'), '<svg>hand</svg>');
    writeFileSync(join(charts, 'stale.svg'), '<svg>stale</svg>');
    writeReport(root, run('second run output'));
    const written = readFileSync(report, 'utf8');
    assert.ok(written.includes(kept), 'the kept part, word for word');
    assert.ok(written.includes('second run output'));
    assert.ok(!written.includes("first run's words") && !written.includes('more old words'));
    assert.equal(readFileSync(join(charts, 'hand.svg'), 'utf8'), '<svg>hand</svg>');
    assert.equal(existsSync(join(charts, 'stale.svg')), false, 'a chart nothing shows is gone');
    // Written again, it is still there once.
    writeReport(root, run('third run output'));
    assert.equal(readFileSync(report, 'utf8').split(KEPT_BEGIN).length, 2);
  });
});

test('a report without a kept part, or none at all, gets none', () => {
  withRoot((root, report) => {
    writeReport(root, run('first'));
    assert.ok(!readFileSync(report, 'utf8').includes(KEPT_BEGIN));
    writeFileSync(report, `# Old\n\n${KEPT_BEGIN}\nno end mark\n`);
    writeReport(root, run('second'));
    assert.ok(!readFileSync(report, 'utf8').includes('no end mark'));
  });
});
