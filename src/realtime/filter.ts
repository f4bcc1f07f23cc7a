/**
 * Delivery filters of a WebSocket session (docs/api-contract.md "Filters and formats"), and its
 * filters by place and strength (docs/realtime.md "Filters by place and strength"): which telegrams
 * a connection receives. Connections with equal filters form one subscription group. `matches` is
 * the one predicate of every delivery path.
 */
import type { FormatMode } from '../sessions/socket-sessions.ts';
import { INTENSITIES, type TelegramFacts } from '../telegrams/facts.ts';
import { earthquakeAreasOfCities } from '../telegrams/place-filters.ts';
import type { TelegramRecord } from '../telegrams/record.ts';

export interface DeliveryFilter {
  classifications: readonly string[];
  /** Exact data type codes; `!CODE` excludes a code. null = every type of the classifications. */
  types: readonly string[] | null;
  test: 'no' | 'including';
  formatMode: FormatMode;
  /** Prefecture and JMA area codes (telegrams/place-filters.ts); absent or null = every place. */
  areas?: readonly string[] | null;
  /** Earthquake and early-warning telegrams below this intensity are dropped; absent or null = none. */
  minIntensity?: string | null;
}

/** A filter compiled for fast matching; `key` identifies its subscription group. */
export interface CompiledFilter {
  readonly key: string;
  readonly filter: DeliveryFilter;
  readonly classifications: ReadonlySet<string>;
  /** null when no positive code was given (every type passes unless excluded). */
  readonly include: ReadonlySet<string> | null;
  readonly exclude: ReadonlySet<string>;
  readonly formatMode: FormatMode;
  /** null when every place passes. */
  readonly areas: ReadonlySet<string> | null;
  /**
   * What earthquake and early-warning telegrams are matched against: `areas` and the earthquake
   * areas its cities lie in (those telegrams name areas, not cities); `areas` itself when the
   * filter names no city. Other telegrams are matched against `areas` alone: a city's area number
   * may also be a tsunami forecast area's.
   */
  readonly earthquakeAreas: ReadonlySet<string> | null;
  /** Rank of `minIntensity` in INTENSITIES; -1 when none. */
  readonly minRank: number;
}

export function compileFilter(filter: DeliveryFilter): CompiledFilter {
  const include = new Set<string>();
  const exclude = new Set<string>();
  for (const t of filter.types ?? []) {
    if (t.startsWith('!')) exclude.add(t.slice(1));
    else include.add(t);
  }
  const classifications = new Set(filter.classifications);
  const areas = filter.areas?.length ? new Set(filter.areas) : null;
  const cityAreas = areas ? earthquakeAreasOfCities([...areas]) : [];
  const key = JSON.stringify([
    [...classifications].sort(),
    [...include].sort(),
    [...exclude].sort(),
    filter.test,
    filter.formatMode,
    filter.areas?.length ? [...new Set(filter.areas)].sort() : null,
    filter.minIntensity ?? null,
  ]);
  return {
    key,
    filter,
    classifications,
    include: include.size > 0 ? include : null,
    exclude,
    formatMode: filter.formatMode,
    areas,
    earthquakeAreas: areas && cityAreas.length > 0 ? new Set([...areas, ...cityAreas]) : areas,
    minRank: filter.minIntensity ? (INTENSITIES as readonly string[]).indexOf(filter.minIntensity) : -1,
  };
}

/**
 * A test or training telegram whose status is known: an XML telegram marked as one, and the JSON
 * conversion of such a telegram. A/N and binary telegrams carry no test status and are always
 * delivered (docs/api-contract.md "Filters and formats").
 */
export function isKnownTest(record: TelegramRecord): boolean {
  return record.head.test && (record.head.xml || record.format === 'json');
}

export function matches(f: CompiledFilter, record: TelegramRecord): boolean {
  if (!f.classifications.has(record.classification)) return false;
  const type = record.head.type;
  if (f.include && !f.include.has(type)) return false;
  if (f.exclude.has(type)) return false;
  if (isKnownTest(record) && f.filter.test !== 'including') return false;
  // Each mode receives only its formats: JSON mode replaces XML by its conversion.
  if (f.formatMode === 'raw' ? record.format === 'json' : record.format === 'xml') return false;
  return (f.areas === null && f.minRank < 0) || placeMatches(f, record.facts);
}

/**
 * The filters by place and strength. A telegram without facts (A/N, binary, stored before facts were
 * kept) names no area, and its intensity is not judged. The facts of an event's telegram hold those
 * of its earlier telegrams (telegrams/event-facts.ts): what admitted one telegram of an event
 * admits the rest of it, its cancellation and its end.
 */
function placeMatches(f: CompiledFilter, facts: TelegramFacts | null | undefined): boolean {
  if (f.minRank >= 0 && facts && (facts.kind === 'earthquake' || facts.kind === 'eew')) {
    const rank = facts.maxIntensity === undefined ? -1 : INTENSITIES.indexOf(facts.maxIntensity);
    if (rank < f.minRank) return false;
  }
  if (f.areas === null) return true;
  if (!facts) return false;
  // A telegram about no place in particular (南海トラフ地震臨時情報, a count of earthquakes, the
  // delivery test of early warnings) is not narrowed by place: dropping it would hide it from
  // everyone who filters.
  if (facts.areas.length === 0) return true;
  const named = ((facts.kind === 'earthquake' || facts.kind === 'eew') && f.earthquakeAreas) || f.areas;
  // A filter names a few codes, a warning hundreds: look each of the filter's up in the sorted list.
  for (const area of named) if (sortedHas(facts.areas, area)) return true;
  return false;
}

function sortedHas(sorted: readonly string[], value: string): boolean {
  let low = 0;
  let high = sorted.length - 1;
  while (low <= high) {
    const mid = (low + high) >>> 1;
    const at = sorted[mid]!;
    if (at === value) return true;
    if (at < value) low = mid + 1;
    else high = mid - 1;
  }
  return false;
}
