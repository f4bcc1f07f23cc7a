/** A webhook subscription's settings for tests that make one directly: the API's defaults, `url`, and what they change. */
import type { SubscriptionSpec } from '../../src/webhooks/subscriptions.ts';

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
    ...overrides,
  };
}
