import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Worker } from 'node:worker_threads';
import type { PrepareReply, PrepareRequest } from '../../src/telegrams/prepare-runners.ts';
import type { ProcessRequest } from '../../src/telegrams/prepare-runners.ts';
import type { AttemptOutcome } from '../../src/webhooks/deliveries.ts';
import type { OutcomeBatch, PostBatch, ThreadSenderOptions } from '../../src/webhooks/sender-thread.ts';
import { prepareForIngest, readyToStore, type Ready } from '../../src/telegrams/prepare.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { fixtureIndex, jmaXmlRoot } from '../support/fixtures.ts';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));

// The esbuild bundle that `npm start` runs, built inside the checkout so that its external
// packages resolve from node_modules as dist/'s do.
describe('the bundle (scripts/build.js)', () => {
  const out = join(root, 'test-output', `bundle-${process.pid}`);
  let database: TestDatabase;
  before(async () => {
    await run(process.execPath, [join(root, 'scripts', 'build.js'), out], { cwd: root });
    database = await createTestDatabase();
  });
  after(async () => {
    rmSync(out, { recursive: true, force: true });
    await database.drop();
  });

  // The prepare code runs as a worker thread (bulk ingest) and as a child process (large live
  // telegrams): prepare-runners.ts.
  const runners = {
    thread: () => {
      const worker = new Worker(join(out, 'prepare-worker.js'));
      return {
        port: worker,
        post: (r: PrepareRequest) => worker.postMessage(r),
        stop: () => worker.terminate(),
      };
    },
    process: () => {
      const child = spawn(process.execPath, [join(out, 'prepare-worker.js')], {
        stdio: ['pipe', 'inherit', 'inherit', 'ipc'],
        serialization: 'advanced',
      });
      // As prepare-runners.ts sends it: the bytes on standard input, the rest on the channel.
      const post = ({ raw, ...request }: PrepareRequest) => {
        child.stdin!.write(raw);
        child.send({ ...request, rawBytes: raw.byteLength } satisfies ProcessRequest);
      };
      return { port: child, post, stop: () => child.kill() };
    },
  };
  for (const [kind, start] of Object.entries(runners)) {
    it(`has a prepare worker that prepares a telegram as the sources do (${kind})`, async () => {
      const worker = start();
      try {
        const [started] = (await once(worker.port, 'message')) as [PrepareReply];
        assert.deepEqual(started, { started: true });
        const entry = fixtureIndex().find((e) => e.type === 'VXSE53')!;
        const raw = readFileSync(entry.path);
        const hints = { fileName: entry.file, receivedTime: 0 };
        const inline = prepareForIngest(raw, hints);
        assert.ok(inline.ok && inline.conversion?.ok);
        // Prepared whole, and read and converted only (this thread then compresses): the same telegram.
        for (const [seq, compress] of [
          [7, true],
          [8, false],
        ] as const) {
          const request: PrepareRequest = { seq, raw, hints, compress };
          worker.post(request);
          const [reply] = (await once(worker.port, 'message')) as [PrepareReply & { seq: number }];
          assert.equal(reply.seq, seq);
          let ready: Ready;
          if (compress) {
            assert.ok('ready' in reply);
            ready = reply.ready;
          } else {
            assert.ok('converted' in reply && reply.converted.ok);
            const { telegram } = reply.converted;
            ready = readyToStore({
              ...reply.converted,
              telegram: { ...telegram, payload: Buffer.from(telegram.payload) },
            });
          }
          assert.ok(ready.ok && ready.conversion?.ok, `compress: ${compress}`);
          assert.equal(ready.telegram.id, inline.telegram.id);
          assert.equal(ready.conversion.telegram.id, inline.conversion.telegram.id);
          assert.equal(ready.conversion.telegram.conversion?.originalId, inline.telegram.id);
        }
      } finally {
        await worker.stop();
      }
    });
  }

  it('has a webhook sender thread that posts a turn of posts and answers their outcomes', async () => {
    const received: { id: string | undefined; body: string }[] = [];
    const receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ id: req.headers['webhook-id'] as string, body: Buffer.concat(chunks).toString() });
        res.writeHead(req.url === '/refuse' ? 410 : 204).end();
      });
    });
    receiver.listen(0, '127.0.0.1');
    await once(receiver, 'listening');
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    const options: ThreadSenderOptions = {
      timeoutMs: 3000,
      maxResponseBytes: 1024,
      maxSocketsPerHost: 4,
      idleMs: 1000,
      allowPrivate: true,
    };
    const worker = new Worker(join(out, 'sender-worker.js'), { workerData: options });
    try {
      const body = new TextEncoder().encode('{"type":"data"}').buffer;
      const batch: PostBatch = {
        bodies: [body],
        posts: [
          { id: 1, url: `${url}/ok`, headers: { 'webhook-id': 'msg_1' }, body: 0 },
          { id: 2, url: `${url}/refuse`, headers: { 'webhook-id': 'msg_2' }, body: 0 },
        ],
      };
      worker.postMessage(batch, [body]);
      const outcomes = new Map<number, AttemptOutcome>();
      while (outcomes.size < 2) {
        const [answered] = (await once(worker, 'message')) as [OutcomeBatch];
        for (const [id, outcome] of answered) outcomes.set(id, outcome);
      }
      assert.equal(outcomes.get(1)!.status, 204);
      assert.equal(outcomes.get(2)!.error, 'HTTP 410');
      assert.deepEqual(
        received.map((r) => r.body),
        ['{"type":"data"}', '{"type":"data"}'],
      );
    } finally {
      await worker.terminate();
      receiver.close();
    }
  });

  it('starts each worker from the chunk beside it', () => {
    // By its name beside the chunk's own URL (src/worker-code.ts for the TypeScript workers).
    for (const worker of ['prepare-worker', 'sender-worker', 'validator-worker', 'pglite-worker']) {
      assert.ok(readdirSync(out).includes(`${worker}.js`), `${worker} is built`);
      const starters = readdirSync(out).filter(
        (name) =>
          name.endsWith('.js') &&
          name !== `${worker}.js` &&
          readFileSync(join(out, name), 'utf8').includes(worker),
      );
      assert.equal(starters.length, 1, `one chunk starts ${worker}`);
    }
  });

  it('ingests the fixtures with their conversions', async () => {
    const target = database.databaseUrl
      ? ['--database-url', database.databaseUrl]
      : ['--data-dir', database.dataDir];
    const { stdout } = await run(
      process.execPath,
      [join(out, 'namazu.js'), 'ingest', ...target, jmaXmlRoot],
      {
        maxBuffer: 16 * 1024 * 1024,
      },
    );
    const result = JSON.parse(stdout) as {
      ingested: number;
      duplicates: number;
      rejected: unknown[];
      conversionFailures: unknown[];
    };
    assert.deepEqual(result, {
      ingested: fixtureIndex().length,
      duplicates: 0,
      rejected: [],
      conversionFailures: [],
    });
  });
});
