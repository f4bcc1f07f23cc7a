// State belongs to an instance (docs/architecture.md "State"): a module of src/ holds no mutable state
// of its own, so that two apps in one process share nothing by accident, except the few listed here,
// each with the reason it may stay. Mutable module state is a top-level `let`, a top-level empty
// Map/Set/WeakMap/WeakSet (one made with content is a lookup table), a top-level instance of any
// other class but a value (URL, RegExp, text codecs) and a `static` field that is not readonly or
// holds an empty collection.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

/** `file name` → why that state may be the module's. */
const ALLOWED: Record<string, string> = {
  'src/http/envelope.ts idOffset':
    'the read position in a block of random bytes for response ids: no app sees it',
  'src/http/envelope.ts lastTime': 'the last time formatted: a memo of a pure function',
  'src/conversion/validate.ts compiled': 'compiled JSON schemas by name: a memo of constant input',
  'src/telegrams/classify.ts byCode': 'built once at load from the constant lists, never changed after',
  'src/db/pglite.ts compiledEngine':
    "the embedded engine's WebAssembly compiled: a memo of a constant file, which PGlite keeps per thread",
  'src/db/postgres.ts statementNames':
    'the prepared-statement name of each SQL text: a memo of a pure function',
  'src/dpop/dpop.ts keyCache': 'imported keys by alg and JWK: a bounded memo of a pure function',
  'src/accounts/accounts.ts dummy':
    'the dummy password hash compared against for unknown accounts, made once',
  'src/console/live/map.ts prefectures': "the prefecture outlines, read once from the release's data",
  'src/api/telegram-lists.ts listed': 'derived from the set it is keyed by (weakly): lives and dies with it',
  'src/api/telegram-items.ts v2Prefixes':
    'derived from the summary it is keyed by (weakly): lives and dies with it',
  'src/api/telegram-items.ts v2ItemsBytes':
    'derived from the page it is keyed by (weakly): lives and dies with it',
  'src/conversion/validate.ts ajv': 'the JSON-schema compiler, whose only state is the compiled schemas',
  'src/conversion/validator-worker.ts ajv':
    "the schema-check thread's compiler, which compiles each schema it is given once and ends",
  'src/webhooks/address-guard.ts refused': 'the refused address ranges, filled once at load',
  'src/sources/scenario/run.ts lastStartMs':
    'scenarios of one process start a second apart, whichever app starts them, so that their EventIDs differ',
};

const COLLECTION = String.raw`new (?:Map|Set|WeakMap|WeakSet)\b(?:<[^\n]*?>)?\(\s*\)`;
/** Classes whose top-level instances are values, or tables when made with content. */
const VALUES = '(?:Map|Set|WeakMap|WeakSet|URL|RegExp|TextEncoder|TextDecoder)';
const MODIFIER = String.raw`(?:(?:private|protected|public) )?`;
const PATTERNS = [
  /^(?:export )?let (\w+)/gm,
  new RegExp(String.raw`^(?:export )?const (\w+)[^=\n]*=\s*${COLLECTION}`, 'gm'),
  new RegExp(String.raw`^(?:export )?const (\w+)[^=\n]*=\s*new (?!${VALUES}\b)\w+`, 'gm'),
  new RegExp(String.raw`^\s+${MODIFIER}static (?!readonly\b)#?(\w+)\s*[:=;]`, 'gm'),
  new RegExp(String.raw`^\s+${MODIFIER}static readonly #?(\w+)[^=\n]*=\s*${COLLECTION}`, 'gm'),
];

/** The names of the mutable module state declared in `source`. */
function moduleState(source: string): string[] {
  return PATTERNS.flatMap((pattern) => [...source.matchAll(pattern)].map((m) => m[1]!));
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

const found = sourceFiles('src').flatMap((file) =>
  moduleState(readFileSync(file, 'utf8')).map((name) => `${file.split('\\').join('/')} ${name}`),
);

test('src/ holds no mutable module state but the listed few', () => {
  assert.deepEqual(
    found.filter((entry) => !(entry in ALLOWED)),
    [],
    'give this state to an instance the server creates (AppContext), or list it here with its reason',
  );
});

test('every listed exception still exists', () => {
  assert.deepEqual(
    Object.keys(ALLOWED).filter((entry) => !found.includes(entry)),
    [],
    'remove it from the list',
  );
});

test('each kind of mutable module state is found; constants, tables and instance fields are not', () => {
  const planted = [
    'let counter = 0;',
    'export let current: string | undefined;',
    'const byDb = new WeakMap<object, Promise<{ stop: () => Promise<void> }>>();',
    'const seen = new Set<string>();',
    'class A {',
    '  static registry = new Map<string, A>();',
    '  private static count: number;',
    '  static readonly pools = new Set<A>();',
    '  static readonly LIMIT = 3;',
    '  static shared(db: object): A {',
    '    let local = 1;',
    '    return new A();',
    '  }',
    '  private readonly own = new Map<string, string>();',
    '}',
    'export const uploads = new SharedBuffers();',
    "const TABLE = new Set(['a', 'b']);",
    'const PATTERN = new RegExp(SOURCE);',
    "const NAMES: ReadonlyMap<string, string> = new Map([['a', 'b']]);",
    'const LIMIT = 5;',
  ].join('\n');
  assert.deepEqual(moduleState(planted).sort(), [
    'byDb',
    'count',
    'counter',
    'current',
    'pools',
    'registry',
    'seen',
    'uploads',
  ]);
});
