/**
 * Every scope the service knows, with the plain words the consent page shows. Requests for any
 * other scope are `invalid_scope`.
 */
export const scopeDescriptions: Readonly<Record<string, string>> = {
  'contract.list': 'See which plans your account has contracted',
  'telegram.list': 'List the telegrams you can receive',
  'telegram.data': 'Read the content of telegrams',
  'telegram.get.earthquake': 'Receive earthquake and tsunami telegrams',
  'telegram.get.volcano': 'Receive volcano telegrams',
  'telegram.get.weather': 'Receive weather warnings and information',
  'telegram.get.forecast': 'Receive weather forecasts',
  'telegram.get.observation': 'Receive weather observations',
  'telegram.get.scheduled': 'Receive scheduled telegrams',
  'telegram.get.lightning': 'Receive lightning telegrams',
  'eew.get.forecast': 'Receive earthquake early warnings (forecast)',
  'eew.get.warning': 'Receive earthquake early warnings (warning)',
  'eew.get.realtime': 'Receive real-time earthquake early warnings',
  'gd.earthquake': 'Read the list and details of earthquakes',
  'gd.eew': 'Read past earthquake early warnings',
  'parameter.earthquake': 'Read the list of seismic-intensity stations',
  'parameter.tsunami': 'Read the list of tsunami observation points',
  'socket.start': 'Open real-time WebSocket connections',
  'socket.list': 'See your WebSocket connections',
  'socket.close': 'Close your WebSocket connections',
  'webhook.list': 'See your webhooks and their deliveries',
  'webhook.manage':
    'Create, change, test, disable and enable, redeliver to, rotate the secrets of and delete webhooks that receive telegrams',
  'admin.telegram.ingest': 'Submit telegrams to this server (administrators only)',
};

export const knownScopes: readonly string[] = Object.keys(scopeDescriptions);

export function isKnownScope(scope: string): boolean {
  return Object.hasOwn(scopeDescriptions, scope);
}

/**
 * The class scope of a classification (docs/api-contract.md "Classifications"): telegram.x →
 * telegram.get.x, eew.x → eew.get.x.
 */
export function classScope(classification: string): string {
  const dot = classification.indexOf('.');
  return `${classification.slice(0, dot)}.get.${classification.slice(dot + 1)}`;
}

/** Splits a space-separated scope string into distinct scopes (empty parts ignored). */
export function parseScopeList(value: string): string[] {
  return [...new Set(value.split(' ').filter((s) => s.length > 0))];
}
