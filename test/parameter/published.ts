import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fixturesRoot } from '../support/fixtures.ts';

/** JMA's published station lists, shared beside the fixtures (never copied into the repository). */
export const stationsDir = join(fixturesRoot, '..', 'data', 'stations');

interface PublishedStation {
  code: string;
  name: string;
  furigana: string;
  lat: string | number;
  lon: string | number;
  affi: string;
  area: { code: string; name: string; furigana: string };
  city: { code: string; name: string; furigana: string };
}
export const publishedStations = (): PublishedStation[] =>
  JSON.parse(readFileSync(join(stationsDir, 'jma-intensity-stations.json'), 'utf8')) as PublishedStation[];
