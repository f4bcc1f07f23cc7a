import { open, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { busCodecs } from '../bus/codecs.ts';
import { builtinStations } from '../parameter/builtin.ts';
import { readIntensityStations, readTsunamiPoints } from '../parameter/published.ts';
import {
  markChanges,
  stationList,
  StationListInvalid,
  type EarthquakeStation,
  type StationItems,
  type StationKind,
  type TsunamiStation,
} from '../parameter/stations.ts';
import { loadImportedList, saveImportedList } from '../parameter/store.ts';
import { databaseFlags, parseFlags, printJson, UsageError } from './args.ts';
import { usageError } from './usage.ts';
import type { CommandIo } from './database.ts';

/** JMA's lists are a few MB; anything far larger is not one. */
const MAX_FILE_BYTES = 32 * 1024 * 1024;

async function readBounded(path: string): Promise<string> {
  const cannotRead = (err: NodeJS.ErrnoException) => {
    throw new StationListInvalid(`cannot read ${path}: ${err.code ?? err.message}`);
  };
  // A pipe or a device has no size to check: opening one waits for a writer, reading may not end.
  if (!(await stat(path).catch(cannotRead)).isFile()) throw new StationListInvalid(`${path} is not a file`);
  const file = await open(path, 'r').catch(cannotRead);
  try {
    const { size } = await file.stat();
    if (size > MAX_FILE_BYTES) throw new StationListInvalid(`${path} is larger than ${MAX_FILE_BYTES} bytes`);
    return await file.readFile('utf8');
  } finally {
    await file.close();
  }
}

type Published =
  { kind: 'earthquake'; rows: EarthquakeStation[] } | { kind: 'tsunami'; rows: TsunamiStation[] };

/** The list a file holds: JSON is the intensity stations, CSV the tsunami points' code table. */
function readPublished(text: string): Published {
  if (/^\s*[[{]/.test(text)) return { kind: 'earthquake' as const, rows: readIntensityStations(text) };
  const columns = text.split(/\r?\n/, 1)[0]!.split(',').length;
  if (columns === 9)
    throw new StationListInvalid(
      'this is the code table of intensity stations, which has no positions: import the station list with positions (JSON)',
    );
  return { kind: 'tsunami' as const, rows: readTsunamiPoints(text) };
}

/**
 * namazu stations import FILE — replaces the served list of seismic-intensity stations (JMA's list
 * with positions, JSON) or of tsunami observation points (JMA's code table, CSV) in one statement,
 * marks what changed against the list served before (docs/parameter.md), and tells running servers.
 * A file that does not validate changes nothing. Prints {"kind","version","changeTime","counts"}.
 */
export async function stationsCommand(argv: string[], io: CommandIo): Promise<void> {
  const { values, positionals } = parseFlags(
    argv,
    { ...databaseFlags, 'change-time': { type: 'string' } },
    true,
  );
  if (positionals[0] !== 'import' || positionals.length !== 2) throw usageError('stations', positionals);
  const changeTime = values['change-time'] === undefined ? null : Date.parse(values['change-time']);
  if (changeTime !== null && Number.isNaN(changeTime))
    throw new UsageError(`--change-time is not an ISO 8601 time: ${values['change-time']}`);
  const published = readPublished(await readBounded(resolve(io.cwd, positionals[1]!)));
  const result = await io.withDatabase(values, async ({ db, bus }) => {
    const time = new Date(changeTime ?? Date.now()).toISOString();
    const served = async <K extends StationKind>(kind: K) =>
      ((await loadImportedList(db, kind)) ?? builtinStations()[kind]).items as StationItems[K];
    const list =
      published.kind === 'earthquake'
        ? stationList('earthquake', time, markChanges(await served('earthquake'), published.rows))
        : stationList('tsunami', time, markChanges(await served('tsunami'), published.rows));
    await saveImportedList(db, list);
    await busCodecs.stations.publish(await bus(), { kind: list.kind });
    const counts: Record<string, number> = {};
    for (const item of list.items as { status?: string }[]) {
      const status = item.status ?? '現';
      counts[status] = (counts[status] ?? 0) + 1;
    }
    return { kind: list.kind, version: list.version, changeTime: list.changeTime, counts };
  });
  printJson(io, result);
}
