import { readFileSync } from 'node:fs';
import * as oauth from 'oauth4webapi';
import { createClient } from '../../src/issuer/clients.ts';
import { ingestTelegram } from '../../src/telegrams/ingest.ts';
import { testFetch } from './fetch.ts';
import { assertResponseSchema } from './schemas.ts';
import type { TestServer } from './server.ts';
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
