import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  coverageSection,
  coverageTable,
  productionConversions,
  reasonsNotConverted,
  replaceCoverageSection,
  unconvertedProductionTypes,
} from '../../src/conversion/coverage.ts';
import { converterFor } from '../../src/conversion/registry.ts';

const doc = readFileSync(
  join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'docs', 'conversion.md'),
  'utf8',
);

test('docs/conversion.md shows the type coverage table the registry gives (scripts/conversion-coverage.ts)', () => {
  assert.equal(
    coverageSection(doc),
    coverageTable(),
    'the table is out of date: node --import tsx scripts/conversion-coverage.ts',
  );
});

test('every type the production service converts has a converter or a documented reason', () => {
  const unexplained = unconvertedProductionTypes().filter((type) => reasonsNotConverted[type] === undefined);
  assert.deepEqual(unexplained, []);
  assert.ok(!coverageTable().includes('no reason given'));
});

test('each row says what the registry says: its converter and version, or none with the reason', () => {
  const rows = new Map(
    coverageTable()
      .split('\n')
      .filter((line) => line.startsWith('| V'))
      .map((line) => [line.split(' | ')[0]!.slice(2), line.split(' | ')[3]!.replace(/ \|$/, '')]),
  );
  assert.equal(rows.size, productionConversions.length);
  for (const entry of productionConversions) {
    const schema = converterFor(entry.types[0]!)?.schema;
    const namazu = rows.get(entry.code);
    if (schema) assert.ok(namazu?.startsWith(`${schema.type} ${schema.version}`), `${entry.code}: ${namazu}`);
    else assert.equal(namazu, `**none**: ${reasonsNotConverted[entry.types[0]!]}`);
  }
});

test('the production service list names schemas and versions the package has, each type once', () => {
  const require = createRequire(import.meta.url);
  const types = productionConversions.flatMap((entry) => entry.types);
  assert.equal(new Set(types).size, types.length);
  for (const entry of productionConversions) {
    assert.doesNotThrow(
      () => require.resolve(`@dmdata/telegram-json-types/dist/jschema/${entry.schema}_${entry.version}.json`),
      `${entry.code}: ${entry.schema} ${entry.version}`,
    );
  }
});

test('the section is replaced between its markers, the rest of the document kept', () => {
  const replaced = replaceCoverageSection(doc, '| x |');
  assert.equal(coverageSection(replaced), '| x |');
  assert.equal(replaced.split('## Schema amendments')[1], doc.split('## Schema amendments')[1]);
  assert.equal(replaced.split('## Type coverage')[0], doc.split('## Type coverage')[0]);
  assert.throws(() => coverageSection('# no markers'), /markers/);
});
