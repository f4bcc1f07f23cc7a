/**
 * Messages between processes. Adapters: in-process (default), PostgreSQL LISTEN/NOTIFY, Redis
 * pub/sub. Payloads are short strings (NOTIFY caps them at 8000 bytes): announce an id or a serial
 * and let receivers read the rest from the database or their cache (a telegram's notice on a
 * network bus may carry its record too: telegrams/announced-record.ts).
 */
export type BusHandler = (payload: string) => void;

export interface Bus {
  /**
   * Set by the PostgreSQL bus, which listens on the service's database: a `pg_notify` sent inside a
   * transaction there reaches every process's subscribers when it commits. Ingest then announces a
   * telegram from its storing statement instead of publishing after COMMIT.
   */
  readonly commitNotices?: CommitNotices;
  /** Set by the in-process bus: its subscribers are this process's own, which hold what it commits. */
  readonly inProcess?: boolean;
  publish(channel: string, payload: string): Promise<void>;
  /** Returns a function that removes this subscription. */
  subscribe(channel: string, handler: BusHandler): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/**
 * Announcements sent by the database at COMMIT. The committing process hears its own too, and often
 * before the statement's answer, when it does not hold the telegram yet: so the statement tags its
 * payloads with `ownSuffix`, this process's bus drops those, and the committing code hands the message
 * to this process's subscribers itself (`deliverHere`) once it holds the telegram.
 */
export interface CommitNotices {
  /**
   * Ends every payload this process's statements announce, `,"origin":"<this process>"}`, after the
   * message's own fields: how this process's bus knows its own.
   */
  readonly ownSuffix: string;
  /** Runs this process's subscribers of `channel` on `payload`, without the network. */
  deliverHere(channel: string, payload: string): void;
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
