import type { Subscriber } from './subscriber.ts';

/** The ids of the connections that are sessions (an anonymous public connection's is negative). */
export function sessionIds(connections: Iterable<Subscriber>): number[] {
  const ids: number[] = [];
  for (const conn of connections) if (conn.socketId > 0) ids.push(conn.socketId);
  return ids;
}
