import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { convertTelegram } from '../../src/conversion/convert.ts';
import { converterFor } from '../../src/conversion/registry.ts';
import { fixtureIndex, restFixtureIndex } from '../support/fixtures.ts';

/**
 * A correction (`Head/InfoType` 訂正) of every type Namazu converts reaches JSON clients, with the
 * body of an issue (docs/conversion.md "Cancellations"): JMA corrects a telegram of any type by
 * sending it again so marked. Made from a real telegram of each type (its first issue among the
 * fixtures), the InfoType changed as JMA writes it.
 */
test('a correction of every converted type converts, with the body its issue has', () => {
  const issues = [...fixtureIndex(), ...restFixtureIndex()].filter(
    (e) => e.infoType === '発表' && converterFor(e.type),
  );
  const done = new Set<string>();
  for (const entry of issues) {
    if (done.has(entry.type)) continue;
    done.add(entry.type);
    const xml = readFileSync(entry.path, 'utf8');
    const issued = convertTelegram(xml, entry.type, 'a'.repeat(96));
    // A type this fixture does not convert (declined or failing) is not this test's concern.
    if (!issued?.ok) continue;
    const corrected = convertTelegram(
      xml.replace(/<InfoType>\s*発表\s*<\/InfoType>/, '<InfoType>訂正</InfoType>'),
      entry.type,
      'a'.repeat(96),
    );
    assert.ok(
      corrected?.ok,
      `${entry.file} (${entry.type}): ${corrected && !corrected.ok ? corrected.reason : 'declined'}`,
    );
    assert.equal(corrected.document.infoType, '訂正', entry.file);
    assert.deepEqual(corrected.document.body, issued.document.body, entry.file);
  }
  assert.ok(done.size > 60, `${done.size} types`);
});
