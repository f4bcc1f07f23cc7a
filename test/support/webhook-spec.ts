/** A webhook subscription's settings for tests that make one directly: the API's defaults, `url`, and what they change. */
import assert from 'node:assert/strict';
import { createSubscription, type SubscriptionSpec } from '../../src/webhooks/subscriptions.ts';
import type { TestServer } from './server.ts';

export function webhookSpec(url: string, overrides: Partial<SubscriptionSpec> = {}): SubscriptionSpec {
  return {
    url,
    classifications: ['telegram.earthquake'],
    types: null,
    test: 'no',
    formatMode: 'raw',
    areas: null,
    minIntensity: null,
    format: 'namazu',
    lang: 'ja',
    token: null,
    visibility: null,
    localOnly: false,
    headers: [],
    mention: null,
    mentionOn: 'urgent',
    ...overrides,
  };
}

/** A subscription of the account to `url`, made directly (not through the API) with those settings: it and its secret. */
export async function madeSubscription(
  server: TestServer,
  accountId: number,
  url: string,
  overrides: Partial<SubscriptionSpec> = {},
) {
  const spec = webhookSpec(url, overrides);
  const created = await createSubscription(
    server.ctx.db,
    server.app.webhooks.box,
    accountId,
    spec,
    new URL(url).hostname,
  );
  assert.ok(created.ok);
  return created;
}
