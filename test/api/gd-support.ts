/**
 * Expected values for the merged earthquake and early-warning APIs, written from the fixture XML
 * (docs/gd.md, docs/conversion.md): component builders so a scenario states only what its XML says.
 */
import { readFileSync } from 'node:fs';
import type { TestServer } from '../support/server.ts';
import { fixtureIndex, type FixtureEntry } from '../telegrams/fixtures.ts';
import { ingestFixtures } from './helpers.ts';

/** Fixture entries by file name, in the order given. */
export function files(...names: string[]): FixtureEntry[] {
  const index = fixtureIndex();
  return names.map((name) => {
    const entry = index.find((e) => e.file === name);
    if (!entry) throw new Error(`no fixture ${name}`);
    return entry;
  });
}

export const fileBytes = (name: string) => readFileSync(files(name)[0]!.path);

/** Ingests fixtures; returns file name → serial of its JSON conversion (the XML's serial + 1). */
export async function ingestNamed(server: TestServer, names: string[]): Promise<Map<string, number>> {
  const serials = await ingestFixtures(server, files(...names));
  return new Map(names.map((n, i) => [n, serials[i]! + 1]));
}

/** Hypocentre component of an earthquake-information document from an ISO 6709 `+lat+lon-depth/`. */
export function hypocenter(o: {
  name: string;
  code: string;
  lat: string;
  lon: string;
  /** depth in metres as in the coordinate (`-50000`), or null when the coordinate has none */
  height: string | null;
  depth: { value: string | null; condition?: string };
  /** the `datum` attribute; absent means WGS and no `geodeticSystem` */
  datum?: string;
  detailed?: { code: string; name: string };
  /** NameFromMark, MarkCode, the mark's name, Direction, Distance (km) */
  auxiliary?: { text: string; code: string; name: string; direction: string; distance: string };
}) {
  return {
    name: o.name,
    code: o.code,
    coordinate: {
      latitude: { text: `${o.lat}˚N`, value: Number(o.lat).toFixed(4) },
      longitude: { text: `${o.lon}˚E`, value: Number(o.lon).toFixed(4) },
      ...(o.height === null ? {} : { height: { type: '高さ', value: o.height, unit: 'm' } }),
      ...(o.datum ? { geodeticSystem: o.datum } : {}),
    },
    depth: { type: '深さ', unit: 'km', ...o.depth },
    ...(o.detailed ? { detailed: o.detailed } : {}),
    ...(o.auxiliary
      ? { auxiliary: { ...o.auxiliary, distance: { unit: 'km', value: o.auxiliary.distance } } }
      : {}),
  };
}

export const magnitude = (value: string | null, condition?: string) => ({
  type: 'マグニチュード',
  unit: 'Mj',
  value,
  ...(condition ? { condition } : {}),
});
