/**
 * The alert rules and the Grafana dashboard of deploy/ (docs/operations.md "Monitoring"): the rule
 * file passes `promtool check rules`, the dashboard's queries parse as PromQL (through promtool too,
 * as recording rules), and every metric either names is one the service exports, read from the
 * /metrics of a running server.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { testFetch } from '../support/fetch.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const root = new URL('../../', import.meta.url);
const RULES = new URL('deploy/prometheus/namazu-rules.yml', root).pathname;
const DASHBOARD = new URL('deploy/grafana/namazu-dashboard.json', root).pathname;
/** Series Prometheus makes itself for every target, not the service. */
const PROMETHEUS_SERIES = new Set(['up']);
const PROMQL_WORDS = new Set(['and', 'or', 'unless', 'bool', 'offset', 'inf', 'nan']);

const promtool = spawnSync('promtool', ['--version']).status === 0;

/** The metric names a PromQL expression reads (label matchers, ranges, clauses and functions removed). */
function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const names: string[] = [];
  for (const m of bare.matchAll(/[A-Za-z_:][A-Za-z0-9_:]*(?=\s*(\(?))/g)) {
    if (m[1] === '(' || PROMQL_WORDS.has(m[0].toLowerCase())) continue;
    names.push(m[0]);
  }
  return names;
}

/** Every series name in a Prometheus text exposition, histogram and summary parts included. */
function exportedNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    names.add(name!);
    if (type === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(name! + s);
    if (type === 'summary') for (const s of ['_sum', '_count']) names.add(name! + s);
  }
  return names;
}

function ruleExpressions(): string[] {
  const text = readFileSync(RULES, 'utf8');
  const exprs = [...text.matchAll(/^\s+expr:\s*(.+)$/gm)].map((m) => m[1]!.trim());
  const rules = [...text.matchAll(/^\s+- (alert|record):/gm)].length;
  assert.equal(exprs.length, rules, 'every rule has its expression on one line');
  return exprs;
}

interface Panel {
  id: number;
  type: string;
  panels?: Panel[];
  targets?: { expr: string }[];
}

function dashboardExpressions(): string[] {
  const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as { panels: Panel[]; uid: string };
  assert.equal(dashboard.uid, 'namazu-overview');
  const panels = dashboard.panels.flatMap((p) => [p, ...(p.panels ?? [])]);
  const ids = panels.map((p) => p.id);
  assert.equal(new Set(ids).size, ids.length, 'panel ids are unique');
  const exprs = panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr));
  assert.ok(panels.filter((p) => p.type !== 'row').every((p) => (p.targets ?? []).length > 0));
  return exprs;
}

/**
 * Unit tests of the alert rules for `promtool test rules`, with series as the service exports them:
 * a counter with a known label set is there at 0 from the start, one with an outcome that never
 * happened since the start (a source that never answered) is absent.
 */
function ruleTests(rules: string): string {
  const at = (labels: string) => `{job="namazu", instance="n1:8080", ${labels}}`;
  return `rule_files: [${JSON.stringify(rules)}]
evaluation_interval: 1m
tests:
  # A source that has failed since the start has no series of successful requests.
  - interval: 1m
    input_series:
      - series: 'namazu_source_requests_total${at('source="jma-feed", outcome="failed"')}'
        values: '1+1x40'
      - series: 'namazu_source_requests_total${at('source="upstream", outcome="failed"')}'
        values: '1+1x40'
      - series: 'namazu_source_requests_total${at('source="upstream", outcome="ok"')}'
        values: '1+1x40'
    alert_rule_test:
      - eval_time: 30m
        alertname: NamazuSourceFailing
        exp_alerts:
          - exp_labels: { severity: warning, source: jma-feed }
            exp_annotations: { summary: 'Every request of source jma-feed failed for 10 minutes' }
  - interval: 1m
    input_series:
      - series: 'namazu_conversion_failures_total${at('schema="earthquake-information"')}'
        values: '0x10 1x50'
    alert_rule_test:
      - eval_time: 15m
        alertname: NamazuConversionFailures
        exp_alerts:
          - exp_labels: { severity: info, schema: earthquake-information }
            exp_annotations:
              summary: '1 telegrams of schema earthquake-information failed to convert in the last hour (the XML was stored)'
  - interval: 1m
    input_series:
      - series: 'namazu_retention_runs_total${at('outcome="failed"')}'
        values: '0x10 1x60 2x60'
    alert_rule_test:
      - eval_time: 40m
        alertname: NamazuPruningFailing
      - eval_time: 80m
        alertname: NamazuPruningFailing
        exp_alerts:
          - exp_labels: { severity: warning, outcome: failed, job: namazu, instance: 'n1:8080' }
            exp_annotations: { summary: 'Retention failed twice in 3 hours on n1:8080: see its log' }
`;
}

/**
 * The rows of the metrics table of docs/operations.md: a row's metric names, the label names of its
 * labels column, and whether it says it is a histogram.
 */
function documentedMetrics(): { name: string; labels: string[]; histogram: boolean }[] {
  const doc = readFileSync(new URL('docs/operations.md', root), 'utf8');
  const table = doc.slice(doc.indexOf('| metric | labels | what |')).split('\n\n')[0]!;
  return table
    .split('\n')
    .slice(2)
    .flatMap((row) => {
      const [, names, labelsColumn, what] = row.split('|').map((c) => c.trim());
      // Values follow `=`; asides are in parentheses.
      const column = labelsColumn!.replace(/\([^)]*\)/g, '').split('=')[0]!;
      const labels = [...column.matchAll(/`([^`]+)`/g)].map((w) => w[1]!).sort();
      const histogram = what!.startsWith('histogram');
      return [...names!.matchAll(/`(namazu_[a-z_]+)`/g)].map((m) => ({ name: m[1]!, labels, histogram }));
    });
}

describe('deploy/: Prometheus rules and Grafana dashboard', () => {
  let server: TestServer;
  let exposition: string;
  let exported: Set<string>;

  before(async () => {
    server = await startTestServer({ listen: false });
    const res = await testFetch(`${server.url}/metrics`);
    assert.equal(res.status, 200);
    exposition = await res.text();
    exported = exportedNames(exposition);
  });
  after(() => server?.close());

  it('the expression parser finds metric names and nothing else', () => {
    assert.deepEqual(
      metricNames(
        'time() - max by (source) (a_b{job="x", y=~"1|2"}) > on (c) (sum without (le) (rate(c_total[5m:1m])) * 86400) and bool up',
      ),
      ['a_b', 'c_total', 'up'],
    );
  });

  it(
    'the rule file passes promtool check rules',
    { skip: !promtool && 'promtool not installed (Debian package prometheus)' },
    () => {
      const out = execFileSync('promtool', ['check', 'rules', RULES], { encoding: 'utf8' });
      assert.match(out, /SUCCESS: \d+ rules found/);
    },
  );

  it(
    'the dashboard queries parse as PromQL',
    { skip: !promtool && 'promtool not installed (Debian package prometheus)' },
    () => {
      const dir = mkdtempSync(join(tmpdir(), 'namazu-dashboard-'));
      try {
        const file = join(dir, 'dashboard-rules.yml');
        const rules = dashboardExpressions().map(
          (expr, i) =>
            `      - record: dashboard_query_${i}\n        expr: ${JSON.stringify(expr.replaceAll('$job', 'namazu'))}`,
        );
        writeFileSync(file, `groups:\n  - name: dashboard\n    rules:\n${rules.join('\n')}\n`);
        const out = execFileSync('promtool', ['check', 'rules', file], { encoding: 'utf8' });
        assert.match(out, new RegExp(`SUCCESS: ${rules.length} rules found`));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  it(
    'the alerts fire on what a process exports from its start (promtool test rules)',
    { skip: !promtool && 'promtool not installed (Debian package prometheus)' },
    () => {
      const dir = mkdtempSync(join(tmpdir(), 'namazu-rules-'));
      try {
        const file = join(dir, 'rules-test.yml');
        writeFileSync(file, ruleTests(RULES));
        const run = spawnSync('promtool', ['test', 'rules', file], { encoding: 'utf8' });
        assert.equal(run.status, 0, run.stdout + run.stderr);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  it('exports the counters the alerts take increase() of at 0 from the start', () => {
    // A series born at its first event hides that event from increase(): the first conversion
    // failure, or the first of two pruning failures, would never alert.
    for (const outcome of ['done', 'busy', 'stopped', 'failed'])
      assert.match(exposition, new RegExp(`^namazu_retention_runs_total\\{outcome="${outcome}"\\} 0$`, 'm'));
    for (const schema of ['earthquake-information', 'eew-information', 'weather-warning'])
      assert.match(
        exposition,
        new RegExp(`^namazu_conversion_failures_total\\{schema="${schema}"\\} 0$`, 'm'),
      );
  });

  it('every metric the metrics table of docs/operations.md lists is exported with the labels it names', () => {
    const rows = documentedMetrics();
    assert.ok(rows.length >= 20, `${rows.length} metrics documented`);
    for (const { name, labels, histogram } of rows) {
      const metric = server.ctx.metrics.registry.getSingleMetric(name) as
        { labelNames: readonly string[]; type: string } | undefined;
      assert.ok(metric, `${name} is exported`);
      assert.deepEqual([...metric.labelNames].sort(), labels, `the labels of ${name}`);
      if (histogram) assert.equal(metric.type, 'histogram', name);
      else assert.equal(metric.type, name.endsWith('_total') ? 'counter' : 'gauge', name);
    }
  });

  it('every metric the rules and the dashboard read is one the service exports', () => {
    for (const [source, exprs] of [
      ['rules', ruleExpressions()],
      ['dashboard', dashboardExpressions()],
    ] as const) {
      const used = new Set(exprs.flatMap(metricNames));
      assert.ok(used.size >= 10, `${source} reads ${used.size} metrics`);
      const unknown = [...used].filter((n) => !exported.has(n) && !PROMETHEUS_SERIES.has(n));
      assert.deepEqual(unknown, [], `${source} reads metrics the service does not export`);
    }
  });
});
