/**
 * The ten classifications of telegrams (docs/api-contract.md "Classifications"): what ingest assigns
 * (telegrams/classify.ts) and what retention settings name besides the projections (config.ts).
 * Imports nothing, so that config.ts may import it.
 */
export const classifications = [
  'eew.forecast',
  'eew.warning',
  'eew.realtime',
  'telegram.earthquake',
  'telegram.volcano',
  'telegram.weather',
  'telegram.forecast',
  'telegram.observation',
  'telegram.scheduled',
  'telegram.lightning',
] as const;
export type Classification = (typeof classifications)[number];
