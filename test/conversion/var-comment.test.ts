import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { convertTelegram } from '../../src/conversion/convert.ts';
import { fixtureIndex, restFixtureIndex } from '../support/fixtures.ts';

/**
 * A VarComment (固定付加文) in a 震度速報 or 震源に関する情報 reaches JSON clients as `comments.var`
 * (docs/conversion.md "Schema amendments"): JMA's schema gives every seismic telegram's Comments the
 * same children, and production's field definitions list `var` for the whole schema, while the
 * package leaves it out of VXSE51/52. Made from a real telegram of each type, the VarComment taken
 * from a real VXSE53.
 */
test('a VXSE51 or VXSE52 with a VarComment converts, the comment in comments.var', () => {
  const entries = [...fixtureIndex(), ...restFixtureIndex()];
  const withVar = entries.find(
    (e) => e.type === 'VXSE53' && readFileSync(e.path, 'utf8').includes('<VarComment'),
  )!;
  const varComment = /<VarComment[^>]*>[\s\S]*?<\/VarComment>/.exec(readFileSync(withVar.path, 'utf8'))![0];
  const text = /<Text>([\s\S]*?)<\/Text>/.exec(varComment)![1]!;
  const codes = /<Code>([\s\S]*?)<\/Code>/.exec(varComment)![1]!.trim().split(/\s+/);
  for (const type of ['VXSE51', 'VXSE52']) {
    const entry = entries.find(
      (e) =>
        e.type === type &&
        e.infoType === '発表' &&
        readFileSync(e.path, 'utf8').includes('</ForecastComment>'),
    )!;
    const xml = readFileSync(entry.path, 'utf8').replace(
      '</ForecastComment>',
      `</ForecastComment>${varComment}`,
    );
    const converted = convertTelegram(xml, type, 'a'.repeat(96));
    assert.ok(converted?.ok, `${entry.file}: ${converted && !converted.ok ? converted.reason : 'declined'}`);
    const comments = (converted.document.body as { comments: Record<string, unknown> }).comments;
    assert.deepEqual(comments.var, { text, codes }, entry.file);
    assert.ok(comments.forecast, entry.file);
  }
});
