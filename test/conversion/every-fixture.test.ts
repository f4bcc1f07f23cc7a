import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { test } from 'node:test';
import { convertTelegram } from '../../src/conversion/convert.ts';
import { converterFor } from '../../src/conversion/registry.ts';
import { schemaViolation } from '../../src/conversion/validate.ts';
import {
  allRestXmlFixtures,
  allXmlFixtures,
  fixtureIndex,
  fixturesRoot,
  restFixtureIndex,
} from '../support/fixtures.ts';

interface FolderCount {
  files: number;
  convertible: number;
  converted: number;
  valid: number;
}

test('every fixture converts and validates: jma-xml/ (three folders) and jma-xml-rest/', () => {
  const index = new Map([...fixtureIndex(), ...restFixtureIndex()].map((entry) => [entry.path, entry]));
  const paths = [...allXmlFixtures(), ...allRestXmlFixtures()];
  const counts = new Map<string, FolderCount>();
  const failures: string[] = [];
  for (const path of paths) {
    const folder = relative(fixturesRoot, dirname(path));
    const count = counts.get(folder) ?? { files: 0, convertible: 0, converted: 0, valid: 0 };
    counts.set(folder, count);
    count.files++;
    const entry = index.get(path);
    assert.ok(entry, `${path} is not in its folder's README index`);
    if (!converterFor(entry.type)) continue;
    count.convertible++;
    const outcome = convertTelegram(readFileSync(path, 'utf8'), entry.type, 'a'.repeat(96));
    if (outcome === null) {
      // No converter declines a telegram of its types, a cancellation (取消) included.
      failures.push(`${folder}/${entry.file} (${entry.type}): declined`);
      continue;
    }
    if (!outcome.ok) {
      failures.push(`${folder}/${entry.file} (${entry.type}): ${outcome.reason}`);
      continue;
    }
    count.converted++;
    const claimed = outcome.document._schema as { type: string; version: string };
    assert.deepEqual(claimed, outcome.schema, `${entry.file}: the _schema it claims`);
    const violation = schemaViolation(claimed, outcome.document);
    if (violation === null) count.valid++;
    else failures.push(`${folder}/${entry.file} (${entry.type}): ${violation}`);
  }
  for (const [folder, c] of [...counts].sort()) {
    console.log(
      `${folder}: ${c.files} files, ${c.convertible} of a converted type: ${c.converted} converted, ` +
        `${c.valid} valid`,
    );
  }
  assert.deepEqual([...counts.keys()].sort(), [
    'jma-xml-rest',
    'jma-xml/jma-official-samples',
    'jma-xml/jma-official-samples-older',
    'jma-xml/real-operational',
  ]);
  assert.deepEqual(failures, []);
  for (const c of counts.values()) assert.equal(c.valid, c.convertible);
});
