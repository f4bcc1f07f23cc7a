/**
 * Messages between processes. Adapters: in-process (default), PostgreSQL LISTEN/NOTIFY, Redis
 * pub/sub. Payloads are short strings (NOTIFY caps them at 8000 bytes): announce an id or a serial
 * and let receivers read the rest from the database or their cache.
 */
export type BusHandler = (payload: string) => void;

export interface Bus {
  /**
   * Subscribers hear a `pg_notify` sent inside a transaction of the service's database, when it
   * commits: the PostgreSQL bus, which listens on that database. Ingest then announces a telegram
   * from its own statement instead of publishing after COMMIT.
   */
  readonly notifiesOnCommit?: boolean;
  publish(channel: string, payload: string): Promise<void>;
  /** Returns a function that removes this subscription. */
  subscribe(channel: string, handler: BusHandler): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/** Channel names used across the service. */
export const channels = {
  /** payload: JSON {serial:number} — a telegram was committed. */
  telegram: 'namazu_telegram',
  /** payload: JSON {accountId:number} — an account's contracts changed. */
  contracts: 'namazu_contracts',
  /** payload: JSON {socketId:number, code:number} — close a WebSocket session wherever it is. */
  socketClose: 'namazu_socket_close',
  /** payload: JSON {digest:string} — a token or key was revoked: drop it from caches. */
  revoked: 'namazu_revoked',
  /** payload: JSON {kind:'earthquake'|'tsunami'} — a station list was imported: read it again. */
  stations: 'namazu_stations',
  /** payload: JSON {serials:number[]} — these telegrams were pruned: drop them from caches. */
  pruned: 'namazu_pruned',
} as const;
