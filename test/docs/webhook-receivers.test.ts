/**
 * The two webhook receivers of docs/webhooks.md ("Receiving"), run as a reader copies them — Node
 * with the `standardwebhooks` package, Python with its standard library — against a real server's
 * deliveries: each prints the test event and a telegram, and refuses a body whose signature is not
 * the subscription's (401).
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ingestTelegram } from '../../src/telegrams/ingest.ts';
import { getJson } from '../support/data-api.ts';
import { fixture } from '../support/fixtures.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const DOC = readFileSync(join(ROOT, 'docs', 'webhooks.md'), 'utf8');
const QUAKE = readFileSync(fixture('rest', '32-35_06_05_240613_VXSE53.xml'));

/** The fenced block of `language` in the doc that holds `marker`. */
function block(language: string, marker: string): string {
  const blocks = [...DOC.matchAll(new RegExp('^```' + language + '\\n([\\s\\S]*?)^```$', 'gm'))];
  const found = blocks.map((m) => m[1]!).find((code) => code.includes(marker));
  assert.ok(found, `a ${language} block with ${marker} in docs/webhooks.md`);
  return found;
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

const python = spawnSync('python3', ['--version']).status === 0;

const receivers = [
  {
    name: 'Node (standardwebhooks)',
    file: 'receiver.mjs',
    code: () => block('js', "from 'standardwebhooks'"),
    command: (path: string) => [process.execPath, path],
    skip: false,
  },
  {
    name: 'Python (standard library)',
    file: 'receiver.py',
    code: () => block('python', 'BaseHTTPRequestHandler'),
    command: (path: string) => ['python3', '-u', path],
    skip: python ? false : 'python3 is not installed',
  },
];

describe('the webhook receivers of docs/webhooks.md', () => {
  let server: TestServer;
  let headers: Record<string, string>;
  // Under the checkout, so that `standardwebhooks` resolves as it does for a reader there.
  mkdirSync(join(ROOT, 'test-output'), { recursive: true });
  const work = mkdtempSync(join(ROOT, 'test-output', 'receivers-'));

  before(async () => {
    server = await startTestServer({ listen: false, config: { webhookAllowPrivate: true } });
    const { account } = await server.createAccount({ contracts: ['telegram.earthquake'] });
    const key = await server.createApiKey(account.id, [
      'webhook.manage',
      'webhook.list',
      'telegram.get.earthquake',
    ]);
    headers = {
      authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}`,
      'content-type': 'application/json',
    };
  });
  after(async () => {
    await server?.close();
    rmSync(work, { recursive: true, force: true });
  });

  for (const receiver of receivers)
    it(
      `${receiver.name}: prints the test event and a telegram, refuses a wrong signature`,
      { skip: receiver.skip },
      async () => {
        const port = await freePort();
        const created = await getJson(server, '/v2/webhook', {
          method: 'POST',
          headers,
          body: JSON.stringify({
            url: `http://127.0.0.1:${port}/`,
            classifications: ['telegram.earthquake'],
            test: 'including',
          }),
        });
        assert.equal(created.status, 200);
        const { id, secret } = created.body as { id: number; secret: string };

        // As the reader runs it: the doc's code, on a free port instead of 8000.
        const path = join(work, receiver.file);
        writeFileSync(path, receiver.code().replace(/\b8000\b/, String(port)));
        const [command, ...args] = receiver.command(path);
        let out = '';
        const child: ChildProcess = spawn(command!, args, {
          env: { ...process.env, WEBHOOK_SECRET: secret },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        child.stdout!.on('data', (d) => (out += d));
        child.stderr!.on('data', (d) => (out += d));
        try {
          // Sent again until the receiver listens: a test event is sent at once, not retried.
          await waitFor(
            async () => {
              const r = await getJson(server, `/v2/webhook/${id}/test`, { method: 'POST', headers });
              return (
                r.status === 200 && (r.body as { delivery?: { status?: number } }).delivery?.status === 204
              );
            },
            { timeout: 15_000, message: `the receiver answers the test event (${out})` },
          );
          await waitFor(() => /^test event \S+$/m.test(out), { message: `test event printed (${out})` });

          // A telegram of its own for each receiver (the same bytes twice would be a duplicate).
          const raw = Buffer.concat([QUAKE, Buffer.from(`\n<!-- ${receiver.file} -->\n`)]);
          const stored = await ingestTelegram(server.ctx, raw, {
            fileName: '32-35_06_05_240613_VXSE53.xml',
            receivedTime: Date.now(),
          });
          assert.ok(stored.ok);
          const line = `telegram.earthquake VXSE53 ${stored.stored.id}`;
          await waitFor(() => out.includes(line), { timeout: 15_000, message: `"${line}" printed (${out})` });

          // Signed with another secret: refused, and nothing printed for it.
          const forged = await fetch(`http://127.0.0.1:${port}/`, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              'webhook-id': 'msg_forged',
              'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
              'webhook-signature': `v1,${Buffer.alloc(32).toString('base64')}`,
            },
            body: JSON.stringify({ type: 'webhook.test', id: 'msg_forged' }),
          });
          assert.equal(forged.status, 401);
          assert.ok(!out.includes('msg_forged'), out);
        } finally {
          child.kill();
        }
      },
    );
});
