import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { convertTelegram } from '../../src/conversion/convert.ts';
import { convertibleTypes, converterFor } from '../../src/conversion/registry.ts';
import { schemaViolation } from '../../src/conversion/validate.ts';
import { fixtureIndex, restFixtureIndex, type FixtureEntry } from '../support/fixtures.ts';

/**
 * A cancellation (`Head/InfoType` 取消) of every schema the registry produces reaches JSON clients
 * (docs/conversion.md "Cancellations"). Two forms, as JMA writes them:
 * - seismology and volcanology: JMA's sample cancellations hold the reason in `Body/Text`, and the
 *   production service's pages say every other body field is absent on 取消: the body is `{text}`
 *   (the early warning's adds `isLastInfo` and `isCanceled`, both true);
 * - meteorology: JMA's sample cancellations (VGSK50/55/60) repeat the body of the telegram they
 *   withdraw, and the production service's pages give no other form: the body is converted as for
 *   an issue, with `infoType` 取消.
 */
const ID = 'a'.repeat(96);
const TEXT_BODY_SCHEMAS = new Set([
  'earthquake-counts',
  'earthquake-explanation',
  'earthquake-hypocenter-update',
  'earthquake-information',
  'earthquake-nankai',
  'eew-information',
  'tsunami-information',
  'volcano-information',
]);

/** Each schema (`type version`) a cancellation above converted in. */
const cancelledIn = new Set<string>();
const entries = [...fixtureIndex(), ...restFixtureIndex()].filter((entry) => converterFor(entry.type));
const schemaOf = (type: string) => converterFor(type)!.schema.type;
const cancelled = (xml: string) => {
  const out = xml.replace(/<InfoType>\s*(発表|訂正)\s*<\/InfoType>/, '<InfoType>取消</InfoType>');
  assert.notEqual(out, xml, 'an InfoType to replace');
  return out;
};
/** `Body/Text` as JMA wrote it, read from the XML text itself (the Body's first `Text` child). */
const bodyText = (xml: string) => /<Body[^>]*>\s*(?:<[^T/][\s\S]*?)?<Text>([\s\S]*?)<\/Text>/.exec(xml)?.[1];

function convert(xml: string, entry: FixtureEntry) {
  const outcome = convertTelegram(xml, entry.type, ID);
  assert.ok(outcome, `${entry.file} (${entry.type}): declined, delivered as XML only`);
  assert.ok(outcome.ok, `${entry.file} (${entry.type}): ${outcome.ok ? '' : outcome.reason}`);
  if (outcome.document.infoType === '取消')
    cancelledIn.add(`${outcome.schema.type} ${outcome.schema.version}`);
  return outcome.document;
}

test("JMA's own cancellations of seismology and volcanology: the reason as the body's text", () => {
  const real = entries.filter((e) => e.infoType === '取消' && TEXT_BODY_SCHEMAS.has(schemaOf(e.type)));
  assert.ok(real.length >= 20, `${real.length} samples`);
  for (const entry of real) {
    const xml = readFileSync(entry.path, 'utf8');
    const document = convert(xml, entry);
    const text = bodyText(xml);
    assert.ok(text, `${entry.file}: a Body/Text`);
    const expected =
      schemaOf(entry.type) === 'eew-information' ? { isLastInfo: true, isCanceled: true, text } : { text };
    assert.equal(document.infoType, '取消', entry.file);
    assert.deepEqual(document.body, expected, entry.file);
  }
});

test('a cancellation of every seismology and volcanology type JMA has no sample cancellation of', () => {
  const sampled = new Set(entries.filter((e) => e.infoType === '取消').map((e) => e.type));
  const issues = entries.filter(
    (e) => e.infoType === '発表' && !sampled.has(e.type) && TEXT_BODY_SCHEMAS.has(schemaOf(e.type)),
  );
  const done = new Set<string>();
  const reason = '先ほどの情報を取り消します。';
  for (const entry of issues) {
    if (done.has(entry.type)) continue;
    done.add(entry.type);
    // As JMA writes a cancellation of these: the Body holds the reason alone.
    const xml = cancelled(readFileSync(entry.path, 'utf8')).replace(
      /(<Body[^>]*>)[\s\S]*<\/Body>/,
      `$1<Text>${reason}</Text></Body>`,
    );
    const document = convert(xml, entry);
    const expected =
      schemaOf(entry.type) === 'eew-information'
        ? { isLastInfo: true, isCanceled: true, text: reason }
        : { text: reason };
    assert.deepEqual(document.body, expected, `${entry.file} (${entry.type})`);
  }
  assert.ok(done.size >= 10, [...done].join());
});

test('a cancellation of every meteorological type keeps the body of the telegram it withdraws', () => {
  const done = new Set<string>();
  for (const entry of entries) {
    if (entry.infoType !== '発表' || TEXT_BODY_SCHEMAS.has(schemaOf(entry.type)) || done.has(entry.type))
      continue;
    done.add(entry.type);
    const xml = readFileSync(entry.path, 'utf8');
    const issue = convert(xml, entry);
    const cancellation = convert(cancelled(xml), entry);
    assert.equal(cancellation.infoType, '取消', entry.file);
    assert.deepEqual(cancellation._schema, issue._schema, entry.file);
    assert.deepEqual(cancellation.body, issue.body, `${entry.file} (${entry.type})`);
    // What the schema admits is 取消 alone, not any InfoType.
    const other = schemaViolation(cancellation._schema, { ...cancellation, infoType: '破棄' });
    assert.match(other ?? 'valid', /infoType|\/type/, entry.file);
  }
  assert.ok(done.size >= 50, `${done.size} types`);
});

test('every schema the registry produces has a cancellation among the cases above', () => {
  const schemas = new Set(
    convertibleTypes().map((type) => `${schemaOf(type)} ${converterFor(type)!.schema.version}`),
  );
  assert.deepEqual(
    [...schemas].filter((schema) => !cancelledIn.has(schema)),
    [],
  );
});
