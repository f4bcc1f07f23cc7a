/**
 * Expected values for the merged earthquake and early-warning APIs, written from the fixture XML
 * (docs/gd.md, docs/conversion.md): component builders so a scenario states only what its XML says.
 */
import { readFileSync } from 'node:fs';
import type { TestServer } from '../support/server.ts';
import { fixtureIndex, type FixtureEntry } from '../support/fixtures.ts';
import { ingestFixtures } from '../support/data-api.ts';

/** Fixture chains of earthquake telegrams (jma-xml/README.md "Useful sequences"). */
export const REAL_2021 = [
  '20210216071046_0_VXSE53_270000.xml',
  '20210217140808_0_VXSE51_010000.xml',
  '20210217140847_0_VXSE52_010000.xml',
  '20210217140958_0_VXSE53_010000.xml',
  '20210217164825_0_VXSE51_010000.xml',
  '20210217164941_0_VXSE52_270000.xml',
  '20210217165040_0_VXSE53_270000.xml',
  '20210217190009_0_VXSE51_010000.xml',
  '20210217190122_0_VXSE52_010000.xml',
  '20210217190220_0_VXSE53_010000.xml',
  '20210219010859_0_VXSE51_010000.xml',
  '20210219010945_0_VXSE52_010000.xml',
  '20210219011051_0_VXSE53_010000.xml',
  '20210220132532_0_VXSE51_010000.xml',
  '20210220132643_0_VXSE52_010000.xml',
  '20210220132753_0_VXSE53_010000.xml',
];
export const OFFICIAL_2010 = [
  '32-35_04_01_100831_VXSE51.xml',
  '32-35_04_02_100831_VXSE51.xml',
  '32-35_04_03_240613_VXSE52.xml',
  '32-35_04_04_240613_VXSE53.xml',
  '32-35_04_06_240613_VXSE53.xml',
];
export const OFFICIAL_2011 = [
  '32-39_11_01_120615_VXSE51.xml',
  '32-39_11_02_250206_VTSE41.xml',
  '32-39_11_03_250206_VTSE51.xml',
  '32-39_11_05_240613_VXSE53.xml',
  '32-39_11_06_250206_VTSE41.xml',
  '61_11_01_250206_VTSE52.xml',
  '61_11_02_250206_VTSE52.xml',
];
export const DISTANT_2023 = [
  '20230410231623_04156158_VXSE53.xml',
  '20230411000017_05859620_VXSE53.xml',
  '20230411013014_06861143_VXSE53.xml',
  '20230411030007_08933757_VXSE53.xml',
  '20230411050043_01977411_VXSE53.xml',
];
/** 訓練 (training) VXSE52 and VXSE53 of EventID 20091001134500. */
export const TRAINING = ['32-35_01_02_240613_VXSE52.xml', '32-35_01_03_240613_VXSE53.xml'];
export const CHAIN_2008 = [
  '32-35_06_01_240613_VXSE52.xml',
  '32-35_06_03_240613_VXSE53.xml',
  '32-35_06_02_100915_VXSE52.xml',
  '32-35_06_06_100915_VXSE53.xml',
  '32-35_06_09_240613_VXSE61.xml',
  '32-35_06_10_100915_VXSE61.xml',
];

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
