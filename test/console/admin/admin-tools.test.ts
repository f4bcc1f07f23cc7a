import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { invitationProblem } from '../../../src/accounts/invitations.ts';
import { Browser, parseForms, signInThroughForm } from '../../support/browser.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';
import { waitFor } from '../../support/wait.ts';

/**
 * The administration's tools (docs/console-live.md "Administration"): an invitation link shown
 * once, and an earthquake scenario started from a form; administrators only, CSRF-protected, every
 * bad field answered beside it with nothing changed.
 */

let server: TestServer;
let admin: Browser;
let user: Browser;

async function signedIn(options: { admin?: boolean }): Promise<Browser> {
  const { account, password } = await server.createAccount(options);
  const browser = new Browser();
  const page = await browser.get(`${server.url}/console/admin`);
  assert.equal(page.status, 303);
  assert.equal(
    (await signInThroughForm(browser, page.headers.get('location')!, account.email, password)).status,
    303,
  );
  return browser;
}

/** Posts the tool's form as the page gave it (its CSRF token), with these fields. */
async function submit(browser: Browser, path: string, fields: [string, string][]): Promise<Response> {
  const page = await (await browser.get(`${server.url}${path}`)).text();
  const csrf = /name="csrf" value="([^"]+)"/.exec(page)![1]!;
  const own = new Set(fields.map(([k]) => k));
  return browser.post(`${server.url}${path}`, [
    ...(own.has('csrf') ? [] : [['csrf', csrf] as [string, string]]),
    ...fields,
  ]);
}

const count = async (sql: string) =>
  (await server.ctx.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${sql}`))[0]!.n;

before(async () => {
  server = await startTestServer();
  admin = await signedIn({ admin: true });
  user = await signedIn({});
});
after(() => server.close());

test('only administrators see the tools', async () => {
  for (const path of ['/console/admin/invite', '/console/admin/scenario']) {
    assert.equal((await user.get(`${server.url}${path}`)).status, 404, path);
    assert.equal((await admin.get(`${server.url}${path}`)).status, 200, path);
  }
});

test('an invitation: bad fields refused beside them, no token refused, the link shown once and usable', async () => {
  const url = `${server.url}/console/admin/invite`;
  const bad = await submit(admin, '/console/admin/invite', [
    ['email', 'not an address'],
    ['days', '365'],
  ]);
  assert.equal(bad.status, 400);
  const badPage = await bad.text();
  assert.match(badPage, /id="tool-email-error">Enter an e-mail address/);
  assert.match(badPage, /id="tool-days-error">Enter a number from 1 – 90/);
  const withoutToken = await submit(admin, '/console/admin/invite', [['csrf', '']]);
  assert.equal(withoutToken.status, 403);
  assert.equal(await count('invitations'), 0);

  const made = await submit(admin, '/console/admin/invite', [
    ['email', 'new.person@example.jp'],
    ['days', '3'],
  ]);
  assert.equal(made.status, 201);
  const link = /<code id="invitation-link">([^<]+)<\/code>/.exec(await made.text())?.[1];
  assert.ok(link, 'the link is shown');
  const token = new URL(link.replaceAll('&amp;', '&')).searchParams.get('invitation')!;
  assert.equal(await invitationProblem(server.ctx.db, server.ctx.pepper, token, Date.now()), null);
  assert.equal(await count('invitations'), 1);
  // Shown once: the page after it holds no token.
  assert.doesNotMatch(await (await admin.get(url)).text(), /INv\./);
  const signup = await new Browser().get(link.replaceAll('&amp;', '&'));
  assert.equal(signup.status, 200);
});

test('a scenario: bad fields refused beside them; a started one stores training telegrams', async () => {
  const bad = await submit(admin, '/console/admin/scenario', [
    ['latitude', 'north'],
    ['longitude', '139.7'],
    ['depth', '40'],
    ['magnitude', '12'],
  ]);
  assert.equal(bad.status, 400);
  const badPage = await bad.text();
  assert.match(badPage, /id="tool-latitude-error">Enter a number from 20 – 50/);
  assert.match(badPage, /id="tool-magnitude-error">Enter a number from 3 – 9.5/);
  assert.doesNotMatch(badPage, /tool-longitude-error/);
  const fields: [string, string][] = [
    ['latitude', '35.7'],
    ['longitude', '139.7'],
    ['depth', '40'],
    ['magnitude', '6.1'],
    ['speed', '1000'],
  ];
  assert.equal((await submit(admin, '/console/admin/scenario', [...fields, ['csrf', 'x']])).status, 403);
  assert.equal(await count('telegrams'), 0);

  const started = await submit(admin, '/console/admin/scenario', fields);
  // Answered by a redirect (Post/Redirect/Get): a reload of the answer starts no other earthquake.
  assert.equal(started.status, 303);
  const answer = await admin.get(started.headers.get('location')!);
  assert.equal(answer.status, 200);
  assert.match(await answer.text(), /id="tool-result">Scenario started: event \d{14} \(training/);
  await waitFor(async () => (await count(`telegrams WHERE type = 'VXSE53' AND format = 'xml'`)) === 1, {
    timeout: 20_000,
    message: 'the scenario to reach its VXSE53',
  });
  assert.equal(await count('telegrams WHERE NOT test'), 0, 'all training');
});

test('the invitation form sent again (a reload of its answer, a double click) makes no second link', async () => {
  const path = '/console/admin/invite';
  // The form as drawn: its CSRF token and the newest invitation it was drawn after.
  const drawnForm = async () =>
    parseForms(await (await admin.get(`${server.url}${path}`)).text())
      .find((f) => f.action.endsWith(path))!
      .fields.filter(([name]) => name === 'csrf' || name === 'newest');
  const drawn = await drawnForm();
  assert.deepEqual(drawn.map(([name]) => name).sort(), ['csrf', 'newest']);
  const before = await count('invitations');
  const fields: [string, string][] = [...drawn, ['email', 'twice@example.jp'], ['days', '7']];
  const first = await admin.post(`${server.url}${path}`, fields);
  assert.equal(first.status, 201);
  const again = await admin.post(`${server.url}${path}`, fields);
  assert.equal(again.status, 409);
  const text = await again.text();
  assert.match(text, /id="form-alert">This form was sent already: it made invitation #\d+/);
  assert.doesNotMatch(text, /invitation-link/, 'no link shown again');
  assert.equal(await count('invitations'), before + 1);
  // Two at once (two tabs) make one as well.
  const drawn2 = await drawnForm();
  const both = await Promise.all(
    [1, 2].map(() => admin.post(`${server.url}${path}`, [...drawn2, ['email', 'once@example.jp']])),
  );
  assert.deepEqual(both.map((r) => r.status).sort(), [201, 409]);
  assert.equal(await count('invitations'), before + 2);
});
