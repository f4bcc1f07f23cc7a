/**
 * The tsunami observation points' `code` is "観測点コード（XML）": the code JMA's tsunami telegrams
 * give the point, five digits with its leading zeros (`<Code>01609</Code>` for 岩手沖９０ｋｍ). A
 * client looks up the points a telegram names by that code.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { readTsunamiPoints } from '../../src/parameter/published.ts';
import { getJson } from '../support/data-api.ts';
import { allXmlFixtures } from '../support/fixtures.ts';
import { auth } from '../support/processes.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/** Every tsunami observation point the fixtures' telegrams name (codeType 潮位観測点), by name. */
function pointsNamedByTelegrams(): Map<string, string> {
  const named = new Map<string, string>();
  for (const path of allXmlFixtures().filter((p) => /VTSE\d\d/.test(p))) {
    const xml = readFileSync(path, 'utf8');
    for (const areas of xml.matchAll(/<Areas codeType="潮位観測点">([\s\S]*?)<\/Areas>/g))
      for (const [, name, code] of areas[1]!.matchAll(/<Name>([^<]+)<\/Name>\s*<Code>([^<]+)<\/Code>/g))
        named.set(name!, code!);
  }
  return named;
}

describe('GET /v2/parameter/tsunami/station: the codes of the telegrams', () => {
  let server: TestServer;
  let key: string;

  before(async () => {
    server = await startTestServer({ listen: false });
    const { account } = await server.createAccount({ contracts: ['telegram.earthquake'] });
    key = await server.createApiKey(account.id, ['parameter.tsunami']);
  });
  after(() => server.close());

  it('lists each point a tsunami telegram names under the code the telegram gives it', async () => {
    const named = pointsNamedByTelegrams();
    assert.ok(named.get('岩手沖９０ｋｍ') === '01609', 'the fixtures name 岩手沖９０ｋｍ as 01609');
    const r = await getJson(server, '/v2/parameter/tsunami/station', { headers: auth(key) });
    assert.equal(r.status, 200);
    const byName = new Map<string, string>(
      r.body.items.map((i: { name: string; code: string }) => [i.name, i.code]),
    );
    for (const [name, code] of named) assert.equal(byName.get(name), code, name);
    for (const { code } of r.body.items as { code: string }[]) assert.match(code, /^\d{5}$/);
  });

  it('reads a code table whose leading zeros a spreadsheet dropped as the five-digit codes', () => {
    const [point] = readTsunamiPoints(
      '1609,岩手沖９０ｋｍ,いわておき９０ｋｍ,,,ヘッダ部でのみ使用する簡略化した観測点名\n',
    );
    assert.equal(point!.code, '01609');
    assert.throws(
      () =>
        readTsunamiPoints(
          '1609,岩手沖９０ｋｍ,いわておき９０ｋｍ,,,\n01609,岩手沖９０ｋｍ,いわておき９０ｋｍ,,,\n',
        ),
      /01609 appears twice/,
    );
  });
});
