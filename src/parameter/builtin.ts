import { readFileSync } from 'node:fs';
import {
  listVersion,
  stationList,
  type EarthquakeStation,
  type StationList,
  type TsunamiStation,
} from './stations.ts';

/**
 * The station lists shipped with Namazu (src/parameter/data/stations.json, written by
 * scripts/build-stations.ts from JMA's published lists). Regions, cities and operators are written
 * once and referred to by index, which keeps the file to a third of the items' size.
 */
export interface PackedStations {
  attribution: string;
  earthquake: {
    changeTime: string;
    /**
     * The list's version (`listVersion` of its items), written with it: hashing the 4,400 items
     * took a server's start 40–80 ms of CPU.
     */
    version: string;
    /** [code, name, kana] */
    regions: [string, string, string][];
    cities: [string, string, string][];
    owners: string[];
    /** [code, name, kana, region index, city index, owner index, latitude, longitude] */
    stations: [string, string, string, number, number, number, string, string][];
  };
  tsunami: {
    changeTime: string;
    version: string;
    /** [code, name, kana] */
    points: [string, string, string][];
  };
}

/** What the packed lists hold before their versions are written. */
type Unversioned = {
  [K in 'earthquake' | 'tsunami']: Omit<PackedStations[K], 'version'>;
};

export function packStations(
  attribution: string,
  earthquake: { changeTime: string; items: EarthquakeStation[] },
  tsunami: { changeTime: string; items: TsunamiStation[] },
): PackedStations {
  const indexer = <T>(key: (t: T) => string) => {
    const at = new Map<string, number>();
    const list: T[] = [];
    return {
      list,
      of(t: T): number {
        let i = at.get(key(t));
        if (i === undefined) at.set(key(t), (i = list.push(t) - 1));
        return i;
      },
    };
  };
  const regions = indexer<[string, string, string]>((r) => r[0]);
  const cities = indexer<[string, string, string]>((c) => c[0]);
  const owners = indexer<string>((o) => o);
  const stations = earthquake.items.map((s): PackedStations['earthquake']['stations'][number] => [
    s.code,
    s.name,
    s.kana,
    regions.of([s.region.code, s.region.name, s.region.kana]),
    cities.of([s.city.code, s.city.name, s.city.kana]),
    owners.of(s.owner),
    s.latitude,
    s.longitude,
  ]);
  const packed: Unversioned = {
    earthquake: {
      changeTime: earthquake.changeTime,
      regions: regions.list,
      cities: cities.list,
      owners: owners.list,
      stations,
    },
    tsunami: { changeTime: tsunami.changeTime, points: tsunami.items.map((p) => [p.code, p.name, p.kana]) },
  };
  // The versions of the lists as a server unpacks them.
  const unpacked = unpackItems(packed);
  return {
    attribution,
    earthquake: {
      ...packed.earthquake,
      version: listVersion(packed.earthquake.changeTime, unpacked.earthquake),
    },
    tsunami: { ...packed.tsunami, version: listVersion(packed.tsunami.changeTime, unpacked.tsunami) },
  };
}

function unpackItems(packed: Unversioned): { earthquake: EarthquakeStation[]; tsunami: TsunamiStation[] } {
  const { regions, cities, owners, stations } = packed.earthquake;
  const named = ([code, name, kana]: [string, string, string]) => ({ code, name, kana });
  const earthquake = stations.map(
    ([code, name, kana, region, city, owner, latitude, longitude]): EarthquakeStation => ({
      region: named(regions[region]!),
      city: named(cities[city]!),
      noCode: code,
      code,
      name,
      kana,
      status: '現',
      owner: owners[owner]!,
      latitude,
      longitude,
    }),
  );
  const tsunami = packed.tsunami.points.map(([code, name, kana]): TsunamiStation => ({
    area: null,
    prefecture: null,
    code,
    name,
    kana,
    owner: '',
    latitude: '',
    longitude: '',
  }));
  return { earthquake, tsunami };
}

export function unpackStations(packed: PackedStations): {
  earthquake: StationList<'earthquake'>;
  tsunami: StationList<'tsunami'>;
} {
  const { earthquake, tsunami } = unpackItems(packed);
  return {
    earthquake: stationList(
      'earthquake',
      packed.earthquake.changeTime,
      earthquake,
      packed.earthquake.version,
    ),
    tsunami: stationList('tsunami', packed.tsunami.changeTime, tsunami, packed.tsunami.version),
  };
}

export const builtinStationsPath = new URL('./data/stations.json', import.meta.url);

/** The lists shipped with this release. */
export function builtinStations(): ReturnType<typeof unpackStations> {
  return unpackStations(JSON.parse(readFileSync(builtinStationsPath, 'utf8')) as PackedStations);
}
