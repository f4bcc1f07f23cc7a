/**
 * What README.md "Configuration" and docs/operations.md promise an operator, checked against the
 * real `namazu serve` and the documented deployment files.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { NAMAZU_BIN, NODE_FLAGS } from '../support/namazu-bin.ts';
import { cleanEnv } from '../support/processes.ts';

const root = new URL('../../', import.meta.url);
const doc = (path: string) => readFileSync(new URL(path, root), 'utf8');

/** `namazu serve` on a fresh data directory with `env`; it must stop by itself (a refused setting). */
function serveRefusing(env: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), 'namazu-docs-settings-'));
  try {
    const r = spawnSync(
      process.execPath,
      [...NODE_FLAGS, NAMAZU_BIN, 'serve', '--data-dir', dir, '--port', '0'],
      {
        encoding: 'utf8',
        env: cleanEnv({ NAMAZU_DEMO: '0', NAMAZU_LOG_LEVEL: 'silent', ...env }),
        timeout: 30_000,
      },
    );
    return { status: r.status, signal: r.signal, stderr: r.stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a misspelt classification in NAMAZU_UPSTREAM_CLASSIFICATIONS stops the start with one line naming it', () => {
  // README: "an invalid value stops the process with one line naming it". The relay derives its
  // scopes from these names (telegram.earthquake → telegram.get.earthquake), so a name that is not
  // a classification could only fail at the upstream, again and again, while nothing is relayed.
  for (const value of ['telegram.earthquak', 'earthquake', 'telegram.earthquake,']) {
    const r = serveRefusing({
      NAMAZU_SOURCES: 'upstream',
      NAMAZU_UPSTREAM_URL: 'http://127.0.0.1:9',
      NAMAZU_UPSTREAM_API_KEY: 'AKe.relay',
      NAMAZU_UPSTREAM_CLASSIFICATIONS: value,
    });
    assert.equal(r.signal, null, `${value}: the process stopped by itself`);
    assert.equal(r.status, 2, `${value}: a configuration error exits with status 2`);
    const lines = r.stderr.trim().split('\n');
    assert.equal(lines.length, 1, `${value}: one line: ${r.stderr}`);
    assert.match(lines[0]!, /NAMAZU_UPSTREAM_CLASSIFICATIONS/);
  }
});

test('the nginx configurations of docs/operations.md let through the largest telegram the server takes', () => {
  // NAMAZU_MAX_TELEGRAM_BYTES defaults to 16 MiB (README); an upload through the console's form is
  // that file inside a multipart body, whose envelope (boundaries, part headers) adds a few hundred
  // bytes. nginx answers a body over client_max_body_size with its own 413 page before the server
  // sees it, so each documented server block must allow at least the telegram plus that envelope.
  const largestTelegram = 16 * 1024 * 1024;
  const units: Record<string, number> = { '': 1, k: 1024, m: 1024 * 1024, g: 1024 * 1024 * 1024 };
  const blocks = [...doc('docs/operations.md').matchAll(/```nginx\n([\s\S]*?)```/g)].map((m) => m[1]!);
  assert.ok(blocks.length >= 2, 'the multi-node and the TLS configurations');
  for (const [i, block] of blocks.entries()) {
    const sizes = [...block.matchAll(/client_max_body_size\s+(\d+)([kmg]?);/gi)].map(
      (m) => Number(m[1]) * units[m[2]!.toLowerCase()]!,
    );
    assert.ok(sizes.length > 0, `nginx block ${i + 1} sets client_max_body_size`);
    for (const size of sizes)
      assert.ok(
        size > largestTelegram + 4096,
        `nginx block ${i + 1}: client_max_body_size ${size} refuses a 16 MiB telegram uploaded through the console`,
      );
  }
});
