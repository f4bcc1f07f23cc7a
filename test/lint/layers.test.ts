// The layers of docs/architecture.md are enforced by ESLint (eslint.config.js): a planted import
// that breaks them must fail `npm run lint`.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { test } from 'node:test';
import { ESLint } from 'eslint';

const eslint = new ESLint({ cwd: process.cwd() });

async function errorsOf(
  filePath: string,
  code: string,
): Promise<{ ruleId: string | null; message: string }[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return result!.messages.filter((m) => m.severity === 2).map(({ ruleId, message }) => ({ ruleId, message }));
}

test('a domain module importing a surface is a lint error', async () => {
  const errors = await errorsOf(
    'src/telegrams/planted.ts',
    "import { registerDataApi } from '../api/routes.ts';\nexport const planted = registerDataApi;\n",
  );
  assert.equal(errors.length, 1, JSON.stringify(errors));
  assert.equal(errors[0]!.ruleId, 'import-x/no-restricted-paths');
  assert.match(errors[0]!.message, /telegrams may not import api/);
});

test('issuer/ importing a surface or the console is a lint error; db/ imports nothing of the service', async () => {
  const fromAuth = await errorsOf(
    'src/issuer/planted.ts',
    "import { consolePaths } from '../console/routes.ts';\nexport const planted = consolePaths;\n",
  );
  assert.deepEqual(
    fromAuth.map((e) => e.ruleId),
    ['import-x/no-restricted-paths'],
  );
  const fromDb = await errorsOf(
    'src/db/planted.ts',
    "import { systemClock } from '../clock.ts';\nexport const planted = systemClock;\n",
  );
  assert.match(fromDb[0]?.message ?? '', /db may not import clock\.ts/);
});

test('sources/ feeds the ingest pipeline and reaches no surface', async () => {
  const errors = await errorsOf(
    'src/sources/planted.ts',
    "import { registerDataApi } from '../api/routes.ts';\nexport const planted = registerDataApi;\n",
  );
  assert.match(errors[0]?.message ?? '', /sources may not import api/);
  const allowed = await errorsOf(
    'src/sources/planted.ts',
    "import { ingestTelegram } from '../telegrams/ingest.ts';\nexport const planted = ingestTelegram;\n",
  );
  assert.deepEqual(allowed, []);
});

test('an import the layers allow passes', async () => {
  const errors = await errorsOf(
    'src/api/planted.ts',
    "import { storeTelegram } from '../telegrams/store.ts';\nexport const planted = storeTelegram;\n",
  );
  assert.deepEqual(errors, []);
});

test('an import cycle is a lint error', async () => {
  // bus/memory.ts imports bus/handlers.ts: handlers importing memory closes a cycle.
  const errors = await errorsOf(
    'src/bus/handlers.ts',
    "import { createMemoryBus } from './memory.ts';\nexport const planted = createMemoryBus;\n",
  );
  assert.deepEqual(
    errors.map((e) => e.ruleId),
    ['import-x/no-cycle'],
  );
});

test('config.ts imports only the classifications, which import nothing of the service', async () => {
  const allowed = await errorsOf(
    'src/config.ts',
    "import { classifications } from './classifications.ts';\nexport const planted = classifications;\n",
  );
  assert.deepEqual(allowed, []);
  const fromConfig = await errorsOf(
    'src/config.ts',
    "import { systemClock } from './clock.ts';\nexport const planted = systemClock;\n",
  );
  assert.match(fromConfig[0]?.message ?? '', /config\.ts may not import clock\.ts/);
  const fromClassifications = await errorsOf(
    'src/classifications.ts',
    "import { systemClock } from './clock.ts';\nexport const planted = systemClock;\n",
  );
  assert.match(fromClassifications[0]?.message ?? '', /classifications\.ts may not import clock\.ts/);
});

test('the credential folders point one way: accounts, issuer, access; console sign-in imports no console area', async () => {
  const back = await errorsOf(
    'src/accounts/planted.ts',
    "import { findClient } from '../issuer/clients.ts';\nexport const planted = findClient;\n",
  );
  assert.match(back[0]?.message ?? '', /accounts may not import issuer/);
  const up = await errorsOf(
    'src/issuer/planted.ts',
    "import { createAuthenticator } from '../access/authenticate.ts';\nexport const planted = createAuthenticator;\n",
  );
  assert.match(up[0]?.message ?? '', /issuer may not import access/);
  const signin = await errorsOf(
    'src/console/signin/planted.ts',
    "import { paths } from '../paths.ts';\nexport const planted = paths;\n",
  );
  assert.match(signin[0]?.message ?? '', /console\/signin may not import the rest of the console/);
});

test('no loop between the folders of src/: every import between two of them points one way', () => {
  // Each top-level folder (or module) of src/ is a node; an import from one to another is an edge.
  const edges = new Map<string, Set<string>>();
  const unit = (path: string) => relative('src', path).split(sep)[0]!;
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? walk(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
    );
  for (const file of walk('src')) {
    for (const [, spec] of readFileSync(file, 'utf8').matchAll(
      /(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g,
    )) {
      const [from, to] = [unit(file), unit(join(dirname(file), spec!))];
      if (from !== to) edges.set(from, (edges.get(from) ?? new Set()).add(to));
    }
  }
  // Depth-first search: a folder met again while still on the path closes a loop.
  const state = new Map<string, 'open' | 'done'>();
  const visit = (node: string, path: string[]): void => {
    if (state.get(node) === 'done') return;
    assert.notEqual(state.get(node), 'open', `a loop: ${[...path, node].join(' → ')}`);
    state.set(node, 'open');
    for (const next of edges.get(node) ?? []) visit(next, [...path, node]);
    state.set(node, 'done');
  };
  for (const node of edges.keys()) visit(node, []);
  assert.ok(edges.size > 20, 'the folders of src/ were read');
});
