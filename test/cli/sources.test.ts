/**
 * namazu scenario and namazu replay as commands (docs/sources.md): usage errors, the
 * refusal of --as-real beside a live source, and both running inside a server on the embedded
 * database through its admin channel (docs/architecture.md, "Admin commands beside a running server").
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { QUAKE_FILE, runNamazu, serveNode, tempDir, type Node } from '../multinode/support.ts';
import { migratedDataDir } from '../support/database.ts';
import { jmaXmlRoot } from '../support/fixtures.ts';
import { waitFor } from '../support/wait.ts';

const SEASONAL_FILE = join(jmaXmlRoot, 'jma-official-samples/01_01_01_091210_VGSK50.xml');

/** namazu_telegrams_ingested_total of a server's /metrics, summed by its `source` label. */
async function ingestedBySource(url: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const counts: Record<string, number> = {};
  for (const [, source, value] of text.matchAll(
    /^namazu_telegrams_ingested_total\{.*source="([^"]+)".*\} (\d+)$/gm,
  ))
    counts[source!] = (counts[source!] ?? 0) + Number(value);
  return counts;
}

const QUAKE = [
  'scenario',
  'earthquake',
  '--lat',
  '35.7',
  '--lon',
  '139.7',
  '--depth',
  '40',
  '--magnitude',
  '7.1',
];

test('scenario usage errors and the --as-real refusal are one line each, nothing ingested', async () => {
  const dir = tempDir('namazu-sources-direct-');
  const env = { NAMAZU_DATA_DIR: join(dir.path, 'data'), NAMAZU_DEMO: '0' };
  try {
    // A migrated database to refuse in (creating one takes seconds); the usage errors open none.
    await migratedDataDir(env.NAMAZU_DATA_DIR);
    const [bad, noKind, refused] = await Promise.all([
      runNamazu([...QUAKE.slice(0, 3), '91', ...QUAKE.slice(4)], env),
      runNamazu(['scenario', '--lat', '35'], env),
      runNamazu([...QUAKE, '--as-real'], { ...env, NAMAZU_SOURCES: 'jma-feed' }),
    ]);
    assert.equal(bad.code, 2);
    assert.equal(bad.stderr, 'namazu scenario: --lat must be a number from 20 to 50\n');
    assert.equal(noKind.code, 2);
    assert.equal(refused.code, 1);
    assert.equal(
      refused.stderr,
      'namazu scenario: --as-real is refused while a real source is enabled (NAMAZU_SOURCES=jma-feed)\n',
    );
    assert.equal(refused.stdout, '');
  } finally {
    dir.remove();
  }
});

test('beside a running embedded server, scenario and replay run in the server', async () => {
  const dir = tempDir('namazu-sources-served-');
  const env = { NAMAZU_DATA_DIR: join(dir.path, 'data'), NAMAZU_DEMO: '0' };
  let node: Node | undefined;
  try {
    await migratedDataDir(env.NAMAZU_DATA_DIR); // a copy: creating a database takes seconds
    node = await serveNode(env);
    const scenario = await runNamazu([...QUAKE, '--as-real', '--speed', '1000'], env);
    assert.equal(scenario.code, 0, scenario.stderr);
    const result = JSON.parse(scenario.stdout);
    assert.match(result.eventId, /^\d{14}$/);
    assert.deepEqual(result.rejected, []);
    assert.ok(result.telegrams.some((t: { type: string }) => t.type === 'VXSE53'));
    // The server's log comes through a pipe: its line may arrive after the command's own answer.
    await waitFor(() => /"command":"scenario","code":0/.test(node!.output()), {
      message: 'the server to log the scenario command',
    });

    const replay = await runNamazu(['replay', '--as-test', '--speed', '1000', QUAKE_FILE], env);
    assert.equal(replay.code, 0, replay.stderr);
    assert.deepEqual(JSON.parse(replay.stdout), { ingested: 1, duplicates: 0, skipped: [], rejected: [] });
    await waitFor(() => /"command":"replay","code":0/.test(node!.output()), {
      message: 'the server to log the replay command',
    });

    const ingest = await runNamazu(['ingest', SEASONAL_FILE], env);
    assert.equal(ingest.code, 0, ingest.stderr);
    // The server counts what each command stored there, by where it came in.
    assert.deepEqual(await ingestedBySource(node.url), {
      scenario: result.telegrams.length,
      replay: 1,
      cli: 1,
    });
  } finally {
    await node?.stop();
    dir.remove();
  }
});
