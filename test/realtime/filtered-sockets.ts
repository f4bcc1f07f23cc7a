/* eslint-disable @typescript-eslint/no-explicit-any -- messages are inspected loosely */
import assert from 'node:assert/strict';
import { ingestTelegram } from '../../src/telegrams/ingest.ts';
import { newAccountKey, newAccountSocket, TestClient } from '../support/realtime.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/**
 * Sockets started with filters by place and strength on a server of their own, each of an account
 * of its own (an account's connections are limited), and the telegrams ingested for them.
 */
export class FilteredSockets {
  server!: TestServer;

  constructor(
    private readonly classifications: readonly string[],
    private readonly scopes: readonly string[],
  ) {}

  async start(): Promise<void> {
    this.server = await startTestServer();
  }

  stop(): Promise<void> {
    return this.server.close();
  }

  /** An API key of a new account contracted for the classifications. */
  key(): Promise<string> {
    return newAccountKey(this.server, this.classifications, this.scopes);
  }

  /** A request with `key`: GET without a body, POST with one. */
  async request(key: string, path: string, body?: unknown) {
    const res = await fetch(`${this.server.url}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, json: (await res.json()) as Record<string, any> };
  }

  /** A socket of a new account, started with these filters, past its `start`. */
  async connect(filters: Record<string, unknown>): Promise<TestClient> {
    const { classifications, scopes } = this;
    return TestClient.pastStart(await newAccountSocket(this.server, { classifications, scopes, filters }));
  }

  /** Ingests a new telegram; its id. */
  async ingest(raw: Buffer): Promise<string> {
    const outcome = await ingestTelegram(this.server.ctx, raw, { receivedTime: Date.now() });
    assert.ok(outcome.ok && !outcome.stored.duplicate);
    return outcome.stored.id;
  }
}

/** The next `data` message's id (pings and other messages skipped). */
export async function nextData(client: TestClient): Promise<string> {
  for (;;) {
    const m = await client.next<Record<string, any>>();
    if (m.type === 'data') return m.id as string;
  }
}
