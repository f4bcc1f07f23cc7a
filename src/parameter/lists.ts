import { busCodecs } from '../bus/codecs.ts';
import type { Bus } from '../bus/types.ts';
import type { Queryable } from '../db/types.ts';
import { builtinStations } from './builtin.ts';
import type { StationKind, StationList } from './stations.ts';
import { loadImportedList } from './store.ts';

/**
 * The station lists a process serves: the imported ones where `namazu stations import` stored one,
 * else the release's own. Read at start and again whenever an import is announced on the bus, so
 * every node serves a new list moments after it is imported.
 */
export class StationLists {
  private lists: { [K in StationKind]: StationList<K> };
  private readonly listeners: (() => void)[] = [];
  /** Positions by station code, built at first use after each change. */
  private positions: Map<string, { latitude: number; longitude: number }> | undefined;

  private constructor(lists: { [K in StationKind]: StationList<K> }) {
    this.lists = lists;
  }

  /**
   * The lists of `db`, kept current from the bus: the server starts one set, shared by the parameter
   * API and the console's map (AppContext.stations), and calls stop() at shutdown.
   */
  static async start(db: Queryable, bus: Bus): Promise<{ lists: StationLists; stop: () => Promise<void> }> {
    const builtin = builtinStations();
    const read = async () => ({
      earthquake: (await loadImportedList(db, 'earthquake')) ?? builtin.earthquake,
      tsunami: (await loadImportedList(db, 'tsunami')) ?? builtin.tsunami,
    });
    const lists = new StationLists(await read());
    const stop = await busCodecs.stations.subscribe(bus, () => {
      read()
        .then((next) => lists.replace(next))
        .catch(() => undefined);
    });
    return { lists, stop };
  }

  get<K extends StationKind>(kind: K): StationList<K> {
    return this.lists[kind] as StationList<K>;
  }

  /** The position of a seismic-intensity station by its XML code, when the list gives one. */
  intensityStation(code: string): { latitude: number; longitude: number } | undefined {
    if (!this.positions) {
      this.positions = new Map();
      for (const s of this.lists.earthquake.items) {
        const latitude = Number(s.latitude);
        const longitude = Number(s.longitude);
        if (Number.isFinite(latitude) && Number.isFinite(longitude))
          this.positions.set(s.code, { latitude, longitude });
      }
    }
    return this.positions.get(code);
  }

  /** Calls `listener` after every change of the lists. */
  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  private replace(next: { [K in StationKind]: StationList<K> }): void {
    this.lists = next;
    this.positions = undefined;
    for (const listener of this.listeners) listener();
  }
}
