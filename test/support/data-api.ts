import { readFileSync } from 'node:fs';
import * as oauth from 'oauth4webapi';
import { createClient } from '../../src/issuer/clients.ts';
import { ingestTelegram } from '../../src/telegrams/ingest.ts';
import { testFetch } from './fetch.ts';
import { assertResponseSchema } from './schemas.ts';
import { startTestServer, type TestServer } from './server.ts';
import { fixtureIndex, type FixtureEntry } from './fixtures.ts';

/** Ingests fixture files through the server's own pipeline; returns their serials in order. */
export async function ingestFixtures(server: TestServer, entries: FixtureEntry[]): Promise<number[]> {
  const serials: number[] = [];
  for (const entry of entries) {
    const raw = readFileSync(entry.path);
    const hints = { fileName: entry.file, receivedTime: server.ctx.clock.now() };
    const outcome = await ingestTelegram(server.ctx, raw, hints);
    if (!outcome.ok) throw new Error(`${entry.file}: ${outcome.reason}`);
    serials.push(outcome.stored.serial);
  }
  await settle(server);
  return serials;
}

export const allFixtures = () => fixtureIndex();

/** The earthquake fixtures that are no test or drill (status 通常). */
export const earthquakeFixtures = () =>
  allFixtures().filter((e) => e.classification === 'telegram.earthquake' && e.status === '通常');

/**
 * A server answering by injection that holds the first `count` of the earthquake fixtures (all when
 * no count is given; `serials` theirs), and a `telegram.list` key of an account contracted for them.
 */
export async function earthquakeListServer(
  count?: number,
): Promise<{ server: TestServer; key: string; serials: number[] }> {
  const server = await startTestServer({ listen: false });
  const { account } = await server.createAccount({ contracts: ['telegram.earthquake'] });
  const key = await server.createApiKey(account.id, ['telegram.list']);
  const serials = await ingestFixtures(server, earthquakeFixtures().slice(0, count));
  return { server, key, serials };
}

/**
 * A request to the server; returns status, headers and the body, parsed when it is JSON. A JSON
 * answer is first checked against the route's declared response schema.
 */
export async function getJson(
  server: TestServer,
  path: string,
  init: RequestInit = {},
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- responses are checked field by field
): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await testFetch(server.url + path, init);
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: kept as text
  }
  if (res.headers.get('content-type')?.startsWith('application/json'))
    assertResponseSchema(server, init.method ?? 'GET', path, res.status, body);
  return { status: res.status, body, headers: res.headers };
}

/** The fields of a `GET /telegram/v1/list` item and of its `data`, sorted (telegram.v1/list.md). */
export const V1_ITEM_FIELDS = ['classification', 'data', 'key', 'url'];
export const V1_DATA_FIELDS = ['author', 'createTime', 'sendNumber', 'test', 'time', 'type', 'xml'];

/**
 * Polls from `cursor` until a page is empty, `polls` pages at the most: each page gives its serials
 * newest first, as the lists answer, and the cursor of the next poll. The serials in the order they
 * arrived (oldest first), and the cursor the last page gave.
 */
export async function pollUntilEmpty<Cursor>(
  cursor: Cursor,
  polls: number,
  poll: (cursor: Cursor) => Promise<{ serials: number[]; next: Cursor }>,
): Promise<{ serials: number[]; cursor: Cursor }> {
  const serials: number[] = [];
  for (let i = 0; i < polls; i++) {
    const page = await poll(cursor);
    serials.push(...[...page.serials].reverse());
    cursor = page.next;
    if (page.serials.length === 0) break;
  }
  return { serials, cursor };
}

/** Brings the server's telegram cache up to date (bus announcements arrive asynchronously). */
export async function settle(server: TestServer): Promise<void> {
  await server.ctx.telegrams.refresh();
}

/** An access token (ATn.…) from the client credentials grant of a new confidential client of the account. */
export async function accessToken(server: TestServer, accountId: number, scopes: string[]): Promise<string> {
  const { client, clientSecret } = await createClient(server.ctx.db, server.ctx.pepper, {
    accountId,
    name: 'test client',
    type: 'confidential',
    grants: ['client_credentials'],
    redirectUris: [],
    scopes,
  });
  const as = { issuer: server.url, token_endpoint: `${server.url}/account/oauth2/v1/token` };
  const c = { client_id: client.clientId };
  const res = await oauth.clientCredentialsGrantRequest(
    as,
    c,
    oauth.ClientSecretPost(clientSecret!),
    { scope: scopes.join(' ') },
    { [oauth.allowInsecureRequests]: true, [oauth.customFetch]: testFetch },
  );
  return (await oauth.processClientCredentialsResponse(as, c, res)).access_token;
}
