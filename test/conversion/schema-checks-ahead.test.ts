/**
 * The schema checks a server compiles ahead, in a thread of its own (conversion/validate.ts
 * `compileChecksInBackground`, started by `namazu serve`): the thread gives the checks of the types
 * asked for, once, and each judges a document as a check compiled on the spot with the same options
 * and the same amended schema does.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { Ajv } from 'ajv';
import { compileSchemaChecks, convertTelegram } from '../../src/conversion/convert.ts';
import {
  AJV_OPTIONS,
  compileChecksInBackground,
  jsonSchemaOf,
  schemaViolation,
} from '../../src/conversion/validate.ts';
import { fixture } from '../support/fixtures.ts';

const EEW_KEY = 'eew-information_1.0.0';
const EEW_SCHEMA = { type: 'eew-information', version: '1.0.0' } as const;

describe('schema checks compiled ahead, in a thread', () => {
  it('gives the checks of the types asked for, each once; types without a converter are left out', async () => {
    // VXSE43 and VXSE45 share one schema; XXXX has no converter.
    const given = await compileSchemaChecks(['VXSE45', 'VXSE43', 'VTSE41', 'VXSE53', 'XXXX']);
    assert.deepEqual(given.sort(), ['earthquake-information_1.1.0', EEW_KEY, 'tsunami-information_1.1.0']);
    // Compiled already: the thread is given nothing to do again.
    assert.deepEqual(await compileSchemaChecks(['VXSE45']), []);
  });

  it('a schema the package lacks is not given; the check at conversion says so, as without the thread', async () => {
    const missing = { type: 'no-such-schema', version: '1.0.0' };
    assert.deepEqual(await compileChecksInBackground([missing]), []);
    assert.equal(schemaViolation(missing, {}), 'no JSON Schema no-such-schema_1.0.0 in the schema package');
  });

  it("a check from the thread passes a real early warning's conversion and refuses a broken one as ajv compiled here does", async () => {
    await compileSchemaChecks(['VXSE45']);
    const xml = readFileSync(fixture('official', '77_01_01_240613_VXSE45.xml'), 'utf8');
    const outcome = convertTelegram(xml, 'VXSE45', 'x');
    assert.ok(outcome?.ok, `converted and valid: ${JSON.stringify(outcome)}`);

    const reference = new Ajv(AJV_OPTIONS).compile(jsonSchemaOf(EEW_KEY)!);
    const document: Record<string, unknown> = { ...outcome.document };
    const broken = [
      { ...document, _schema: { type: 'eew-information', version: '9.9.9' } },
      { ...document, type: 42 },
      Object.fromEntries(Object.entries(document).filter(([name]) => name !== 'body')),
    ];
    for (const doc of broken) {
      assert.equal(reference(doc), false, 'the reference refuses it');
      const first = reference.errors![0]!;
      assert.equal(schemaViolation(EEW_SCHEMA, doc), `${first.instancePath || '/'} ${first.message}`);
    }
  });
});
