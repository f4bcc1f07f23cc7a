import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, test } from 'node:test';
import type { Browser } from '../../support/browser.ts';
import { parseForms, signedInBrowser } from '../../support/browser.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';

// Attack (docs/security.md "Standing probes"): 4 MiB multipart uploads to the administration
// page's ingest form from someone who is not a signed-in administrator with the form's token. Each
// is answered before its body is read, and none keeps an upload slot: with every slot of the
// process (4 here) targeted many times over, the administrator's own upload still goes through.
let server: TestServer;
let admin: Browser;
let user: Browser;
before(async () => {
  server = await startTestServer({ config: { maxUploads: 4, maxUploadsPerAddress: 4 } });
  const a = await server.createAccount({ admin: true });
  const u = await server.createAccount();
  admin = await signedInBrowser(server.url, a.account.email, a.password);
  user = await signedInBrowser(server.url, u.account.email, u.password);
});
after(() => server.close());

const BOUNDARY = 'namazu-test-boundary';
const BODY_BYTES = 4 * 1024 * 1024;

const cookieOf = (browser: Browser) => [...browser.cookies].map(([k, v]) => `${k}=${v}`).join('; ');

/**
 * Sends the head of a 4 MiB multipart upload and 64 KiB of its body, then waits: resolves with the
 * answer and the time until the server closed the connection.
 */
function upload(path: string, cookie = ''): Promise<{ response: string; closedAfterMs: number }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(server.port, '127.0.0.1');
    let response = '';
    socket.on('data', (d) => (response += d.toString('latin1')));
    socket.on('error', () => {});
    socket.on('close', () => resolve({ response, closedAfterMs: Date.now() - started }));
    socket.on('connect', () => {
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
          `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\n` +
          `Content-Length: ${BODY_BYTES}\r\n${cookie ? `Cookie: ${cookie}\r\n` : ''}\r\n`,
      );
      socket.write(
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="telegram"; filename="x.xml"\r\n\r\n`,
      );
      socket.write(Buffer.alloc(64 * 1024, 0x41));
    });
    setTimeout(() => reject(new Error('connection still open after 20 s')), 20_000).unref();
  });
}

test('uploads to the ingest form without an administrator session and token are refused before the body', async () => {
  const form = parseForms(await (await admin.get(`${server.url}/console/admin/ingest`)).text()).find((f) =>
    f.action.startsWith('/console/admin/ingest?csrf='),
  );
  assert.ok(form, 'the form carries its token in its action');
  const foreign = new URL(form.action, server.url).searchParams.get('csrf')!;
  const cases = [
    { cookie: '', path: '/console/admin/ingest', status: 303 },
    { cookie: cookieOf(user), path: `/console/admin/ingest?csrf=${foreign}`, status: 404 },
    { cookie: cookieOf(admin), path: '/console/admin/ingest', status: 403 },
    { cookie: cookieOf(admin), path: '/console/admin/ingest?csrf=forged', status: 403 },
  ];
  const rssBefore = process.memoryUsage().rss;
  // 10 of each at once, against 4 upload slots: a held slot would turn some answers into 503.
  const outcomes = await Promise.all(
    cases.flatMap((c) =>
      Array.from({ length: 10 }, () => upload(c.path, c.cookie).then((o) => ({ ...o, c }))),
    ),
  );
  for (const { response, closedAfterMs, c } of outcomes) {
    assert.match(
      response,
      new RegExp(`^HTTP/1\\.1 ${c.status} `),
      `${c.path} ${c.cookie ? 'signed in' : ''}`,
    );
    assert.match(response, /\r\nconnection: close\r\n/i);
    // Long before the request time-out (30 s), which would close an upload whose body is awaited.
    assert.ok(closedAfterMs < 10_000, `closed after ${closedAfterMs} ms`);
  }
  assert.ok(process.memoryUsage().rss - rssBefore < 64 * 1024 * 1024);

  // The administrator's upload with the form's token is read and answered by the page (an empty
  // file: refused by the page itself, after reading the body, without starting an ingest).
  const file = new FormData();
  file.set('telegram', new Blob([]), 'x.xml');
  const res = await fetch(new URL(form.action, server.url), {
    method: 'POST',
    headers: { cookie: cookieOf(admin) },
    body: file,
    redirect: 'manual',
  });
  assert.equal(res.status, 400);
  assert.match(await res.text(), /id="ingest-result">[^<]*Choose a telegram file/);
});
