import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { convertTelegram } from '../../src/conversion/convert.ts';
import { converterFor } from '../../src/conversion/registry.ts';
import { schemaViolation } from '../../src/conversion/validate.ts';
import { fixtureIndex, fixturesRoot } from '../support/fixtures.ts';

/** The official samples' `_originalId` placeholder. */
export const SAMPLE_ORIGINAL_ID = 'TELEGRAM_ID';

export interface GoldPair {
  xml: string;
  json: string;
  type: string;
  schema: string;
  schemaVersion: string;
}

/** The XML → official JSON pairs of one schema (fixtures/pairs.json). */
export function goldPairs(schema: string): GoldPair[] {
  const pairs = JSON.parse(readFileSync(join(fixturesRoot, 'pairs.json'), 'utf8')) as GoldPair[];
  return pairs.filter((p) => p.schema === schema);
}

export const readFixture = (relative: string) => readFileSync(join(fixturesRoot, relative), 'utf8');

/** Converts a fixture XML file as ingest would (its type from the fixture index or the pair). */
export function convertFixture(xmlPath: string, type: string, originalId = SAMPLE_ORIGINAL_ID) {
  return convertTelegram(readFileSync(xmlPath, 'utf8'), type, originalId);
}

/**
 * Paths at which two JSON values differ, compared as data (key order ignored): `$.body.x[2].y`.
 * A key present on one side only is a difference; so is `null` against an absent key.
 */
export function differences(actual: unknown, expected: unknown, path = '$'): string[] {
  if (Array.isArray(expected) || Array.isArray(actual)) {
    if (!Array.isArray(expected) || !Array.isArray(actual)) return [path];
    const out: string[] = [];
    if (actual.length !== expected.length) out.push(`${path}.length`);
    for (let i = 0; i < Math.min(actual.length, expected.length); i++) {
      out.push(...differences(actual[i], expected[i], `${path}[${i}]`));
    }
    return out;
  }
  if (isObject(expected) || isObject(actual)) {
    if (!isObject(expected) || !isObject(actual)) return [path];
    const keys = new Set([...Object.keys(actual), ...Object.keys(expected)]);
    return [...keys]
      .sort()
      .flatMap((k) =>
        !(k in actual) || !(k in expected)
          ? [`${path}.${k}`]
          : differences(actual[k], expected[k], `${path}.${k}`),
      );
  }
  return Object.is(actual, expected) ? [] : [path];
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The key order of an object on both sides: `ours` (the conversion's) and `theirs` (production's). */
export interface KeyOrder {
  path: string;
  ours: string;
  theirs: string;
}

/**
 * The key orders of every object whose path (`$.body.x[].y`, arrays as `[]`) matches `at`, where
 * both documents hold it: production's clients may compare or show documents as text, so the order
 * of keys is part of the conversion.
 */
export function keyOrders(actual: unknown, expected: unknown, at: RegExp, path = '$'): KeyOrder[] {
  if (Array.isArray(actual) && Array.isArray(expected)) {
    return actual.flatMap((a, i) => (i < expected.length ? keyOrders(a, expected[i], at, `${path}[]`) : []));
  }
  if (!isObject(actual) || !isObject(expected)) return [];
  const here = at.test(path)
    ? [{ path, ours: Object.keys(actual).join(','), theirs: Object.keys(expected).join(',') }]
    : [];
  return [
    ...here,
    ...Object.keys(actual)
      .filter((k) => k in expected)
      .flatMap((k) => keyOrders(actual[k], expected[k], at, `${path}.${k}`)),
  ];
}

/**
 * Allowed differences of one pair, keyed by the JSON sample's path (relative to the fixtures):
 * each a JSON path (as `differences` writes it; a trailing `*` matches a prefix) with its reason.
 * Only documented sample-revision effects and older sample schema versions belong here.
 */
export type AllowedDifferences = Record<string, Record<string, string>>;

/**
 * One test per gold pair of the schema: the conversion equals the official JSON as data, except
 * the listed allowed differences, each of which must actually occur (a stale allowance fails).
 * Prints the score (pairs equal / pairs) when the file's tests end.
 */
export function goldPairTests(schema: string, allowed: AllowedDifferences = {}): void {
  const pairs = goldPairs(schema);
  let equal = 0;
  let equalButAllowed = 0;
  test(`${schema}: the fixtures have gold pairs`, () => assert.ok(pairs.length > 0));
  for (const pair of pairs) {
    test(`${schema} gold pair ${pair.json.split('/').pop()} ← ${pair.xml.split('/').pop()}`, () => {
      const outcome = convertFixture(join(fixturesRoot, pair.xml), pair.type);
      assert.ok(outcome, `no converter for ${pair.type}`);
      assert.ok(outcome.ok, !outcome.ok ? outcome.reason : '');
      const expected = JSON.parse(readFixture(pair.json)) as unknown;
      const allowedHere = allowed[pair.json] ?? {};
      const matches = (diff: string) =>
        Object.keys(allowedHere).some((p) =>
          p.endsWith('*') ? diff.startsWith(p.slice(0, -1)) : diff === p,
        );
      const found = differences(outcome.document, expected);
      assert.deepEqual(
        found.filter((d) => !matches(d)),
        [],
        'differences from the official conversion',
      );
      for (const p of Object.keys(allowedHere)) {
        assert.ok(
          found.some((d) => (p.endsWith('*') ? d.startsWith(p.slice(0, -1)) : d === p)),
          `allowed difference ${p} no longer occurs: remove it`,
        );
      }
      if (found.length === 0) equal++;
      else equalButAllowed++;
    });
  }
  after(() => {
    console.log(
      `gold pairs ${schema}: ${equal + equalButAllowed} / ${pairs.length} equal as data ` +
        `(${equal} exactly, ${equalButAllowed} apart from listed allowed differences)`,
    );
  });
}

/**
 * One test per fixture XML of the given data types: it converts, and the document validates
 * against the schema package's JSON Schema for the version it claims.
 */
export function fixtureSchemaTests(types: readonly string[]): void {
  const wanted = new Set(types);
  const fixtures = fixtureIndex().filter((f) => wanted.has(f.type));
  test(`fixtures of ${types.join(', ')} exist`, () => assert.ok(fixtures.length > 0));
  for (const f of fixtures) {
    test(`${f.type} ${f.file} converts and validates`, () => {
      assert.ok(converterFor(f.type), `no converter for ${f.type}`);
      const outcome = convertFixture(f.path, f.type, 'a'.repeat(96));
      assert.ok(outcome, 'the converter declined the telegram');
      assert.ok(outcome.ok, !outcome.ok ? outcome.reason : '');
      assert.equal(schemaViolation(outcome.schema, outcome.document), null);
      assert.deepEqual(outcome.document._schema, outcome.schema);
    });
  }
}
