// The runnable examples of the README and docs/*.md, run as Rust runs its doc tests: every fenced
// block whose info string carries `test` (```sh test, ```js test) is extracted and run against one
// real server, and its exit status (and, where a ```json block follows it, the shape of its output)
// checked. The convention is described in the README's paragraph on tests.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createClient } from '../../src/issuer/clients.ts';
import { knownScopes } from '../../src/scopes.ts';
import { ingestTelegram } from '../../src/telegrams/ingest.ts';
import { Browser, signInThroughForm } from '../support/browser.ts';
import { accessToken, settle } from '../support/data-api.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const BLOCK_TIMEOUT_MS = 20_000;
/** The pages of the API's endpoints: each shows at least one runnable request. */
const ENDPOINT_PAGES = [
  'docs/data-api.md',
  'docs/realtime.md',
  'docs/oauth.md',
  'docs/gd.md',
  'docs/parameter.md',
  'docs/webhooks.md',
];

interface Example {
  file: string;
  line: number;
  language: 'sh' | 'js';
  /** `browser`: a person approves the authorization URL the example prints (the test signs in). */
  flags: string[];
  code: string;
  /** The ```json block right after the example: what its output looks like. */
  expected?: unknown;
}

/** Every fenced block marked `test` in `text`, with the ```json block that follows it, if any. */
export function extractExamples(file: string, text: string): Example[] {
  const lines = text.split('\n');
  const examples: Example[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(sh|bash|js|mjs)\s+test\b(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const end = lines.indexOf('```', i + 1);
    if (end < 0) throw new Error(`${file}:${i + 1}: unclosed block`);
    const language = open[1] === 'sh' || open[1] === 'bash' ? 'sh' : 'js';
    const example: Example = {
      file,
      line: i + 1,
      language,
      flags: open[2]!.trim().split(/\s+/).filter(Boolean),
      code: lines.slice(i + 1, end).join('\n'),
    };
    let next = end + 1;
    while (next < lines.length && lines[next]!.trim() === '') next++;
    if (lines[next] === '```json') {
      const close = lines.indexOf('```', next + 1);
      example.expected = JSON.parse(lines.slice(next + 1, close).join('\n'));
    }
    examples.push(example);
    i = end;
  }
  return examples;
}

function markdownFiles(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`);
  return ['README.md', ...docs.sort()];
}

type Shape = string | Shape[] | { [key: string]: Shape };

/** What a JSON value looks like, values aside: object keys, the first element of arrays, types. */
function shapeOf(value: unknown): Shape {
  if (value === null) return 'null';
  if (Array.isArray(value)) return value.length === 0 ? [] : [shapeOf(value[0])];
  if (typeof value === 'object')
    return Object.fromEntries(
      Object.keys(value as object)
        .sort()
        .map((k) => [k, shapeOf((value as Record<string, unknown>)[k])]),
    );
  return typeof value;
}

/** The JSON the example printed: all of its output, else its last line. */
function outputJson(stdout: string): unknown {
  const text = stdout.trim();
  try {
    return JSON.parse(text);
  } catch {
    return JSON.parse(text.split('\n').at(-1)!);
  }
}

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs one example as a child process (the server answers in this process, so never a synchronous
 * spawn). `onOutput` sees stdout as it grows.
 */
function runExample(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  onOutput: (stdout: string) => void = () => {},
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), BLOCK_TIMEOUT_MS);
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      onOutput(stdout);
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

const examples = markdownFiles().flatMap((file) =>
  extractExamples(file, readFileSync(join(ROOT, file), 'utf8')),
);

describe('runnable examples of the README and docs/', () => {
  let server: TestServer;
  let env: NodeJS.ProcessEnv;
  let user: { email: string; password: string };
  const scratch = join(ROOT, 'test-output', `doc-examples-${process.pid}`);

  before(async () => {
    server = await startTestServer({ config: { dpopNonce: false } });
    const classifications = [
      'telegram.earthquake',
      'telegram.weather',
      'telegram.volcano',
      'eew.forecast',
      'eew.warning',
    ];
    const { account, password } = await server.createAccount({
      admin: true,
      contracts: classifications,
    });
    user = { email: account.email, password };
    const samples = join(ROOT, 'samples', 'telegrams');
    for (const name of readdirSync(samples).sort()) {
      const outcome = await ingestTelegram(server.ctx, readFileSync(join(samples, name)), {
        fileName: name,
        receivedTime: server.ctx.clock.now(),
      });
      assert.ok(outcome.ok, name);
    }
    await settle(server);
    const confidential = await createClient(server.ctx.db, server.ctx.pepper, {
      accountId: account.id,
      name: 'docs confidential',
      type: 'confidential',
      grants: ['client_credentials'],
      redirectUris: [],
      scopes: [...knownScopes],
    });
    const native = await createClient(server.ctx.db, server.ctx.pepper, {
      accountId: account.id,
      name: 'docs native',
      type: 'public',
      grants: ['authorization_code', 'refresh_token'],
      redirectUris: ['http://127.0.0.1/callback'],
      scopes: [...knownScopes],
    });
    env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NAMAZU: server.url,
      KEY: await server.createApiKey(account.id, [...knownScopes]),
      TOKEN: await accessToken(server, account.id, [...knownScopes]),
      CLIENT_ID: confidential.client.clientId,
      CLIENT_SECRET: confidential.clientSecret!,
      PUBLIC_CLIENT_ID: native.client.clientId,
    };
    mkdirSync(scratch, { recursive: true });
  });
  after(async () => {
    rmSync(scratch, { recursive: true, force: true });
    await server?.close();
  });

  it('finds runnable examples, a request on every endpoint page', () => {
    for (const page of ENDPOINT_PAGES)
      assert.ok(
        examples.some((e) => e.file === page && e.language === 'sh' && /\bcurl\b/.test(e.code)),
        `${page} has no runnable curl example`,
      );
    assert.ok(examples.some((e) => e.file === 'docs/clients.md' && e.language === 'js'));
  });

  /** Plays the person at the browser: signs in and approves the first authorization URL printed. */
  async function approveOnce(stdout: string, state: { started: boolean }): Promise<void> {
    const url = /^(https?:\/\/\S+[?&]code_challenge=\S+)$/m.exec(stdout)?.[1];
    if (!url || state.started) return;
    state.started = true;
    const browser = new Browser();
    const first = await browser.get(url);
    assert.equal(first.status, 303, 'the authorization URL sends a new browser to sign in');
    await signInThroughForm(browser, first.headers.get('location')!, user.email, user.password);
    const consent = await browser.get(url);
    assert.equal(consent.status, 200);
    const done = await browser.submit(await consent.text(), '/auth/consent', [['decision', 'approve']]);
    assert.equal(done.status, 303);
    const callback = await fetch(done.headers.get('location')!);
    assert.equal(callback.status, 200);
  }

  for (const example of examples)
    it(`${example.file}:${example.line} (${example.language}${example.flags.map((f) => ` ${f}`).join('')})`, async () => {
      let run: Run;
      if (example.language === 'sh') {
        run = await runExample('bash', ['-euo', 'pipefail', '-c', example.code], env);
      } else {
        // Inside the checkout, so that imports resolve from its node_modules.
        const file = join(scratch, `${example.file.replace(/\W/g, '-')}-${example.line}.mjs`);
        writeFileSync(file, example.code);
        const browser = { started: false, done: Promise.resolve(), error: undefined as unknown };
        run = await runExample(process.execPath, [file], env, (stdout) => {
          if (example.flags.includes('browser') && !browser.started)
            browser.done = approveOnce(stdout, browser).catch((error: unknown) => {
              browser.error = error;
            });
        });
        await browser.done;
        if (browser.error) throw browser.error;
        if (example.flags.includes('browser'))
          assert.ok(browser.started, `no authorization URL printed\n${run.stdout}\n${run.stderr}`);
      }
      const context = `exit ${run.status}\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`;
      assert.equal(run.status, 0, context);
      if (example.expected !== undefined)
        assert.deepEqual(shapeOf(outputJson(run.stdout)), shapeOf(example.expected), context);
    });

  it('tells a failing example and an output of another shape', async () => {
    const run = await runExample('bash', ['-euo', 'pipefail', '-c', 'curl -sf "$NAMAZU/v2/nothing"'], env);
    assert.notEqual(run.status, 0);
    assert.notDeepEqual(shapeOf({ items: [{ id: 'a' }] }), shapeOf({ items: [{ id: 1 }] }));
    assert.notDeepEqual(shapeOf({ status: 'ok' }), shapeOf({ status: 'ok', error: {} }));
  });
});
