/**
 * What opens a real-time connection: the session gate of a ticket (a socket, `GET /v2/stream`) and
 * the gate of the public WebSocket, and what each answers.
 */
import type { SessionSpec } from '../sessions/socket-sessions.ts';
import type { CompiledFilter, DeliveryFilter } from './filter.ts';

/** The session a valid ticket opens. */
export interface OpenedSession {
  socketId: number;
  filter: DeliveryFilter;
  /** `filter` compiled, when the gate holds it so for every connection asking the same. */
  compiled?: CompiledFilter;
  appName: string | null;
  /** The serial the connection catches up from before it goes live (docs/realtime.md "Resume"). */
  resumeAfter?: number | null;
}

/** A refused ticket: the close code (4404, 4409, 4807, …) and its message. */
export interface Refusal {
  code: number;
  message: string;
}

/** What the endpoint needs from the session store. */
export interface SessionGate {
  /** Redeems a ticket (single-use: a failed attempt uses it too) and marks the session open. */
  open(ticket: string, ipAddress: string | null): Promise<OpenedSession | Refusal>;
  /**
   * The connection of an opened session ended, for whatever reason (`code`: the close code; null
   * when a stream's client went away).
   */
  closed(socketId: number, code: number | null): void;
  /**
   * The server closed the socket of an opened session with `code`; its peer has yet to answer
   * (`closed` follows once the socket is gone). The session ends here.
   */
  closing?(socketId: number, code: number): void;
}

/**
 * The public WebSocket (docs/realtime.md "Public streams"): connections opened from the query of
 * the upgrade request, without a ticket.
 */
export interface PublicSocketGate {
  readonly path: string;
  /**
   * Admits an anonymous connection (caps, rate) and reads what it asks for from `search`, the
   * request's query string (`?…`, or empty).
   */
  open(search: string, ipAddress: string | null): Promise<OpenedSession | Refusal>;
  /** The connection of an opened anonymous socket ended. */
  closed(socketId: number): void;
}

/** The delivery filter of what a session (or an anonymous connection) asked for. */
export function deliveryFilterOf(spec: SessionSpec): DeliveryFilter {
  return {
    classifications: spec.classifications,
    types: spec.types,
    test: spec.test,
    formatMode: spec.formatMode,
    areas: spec.areas ?? null,
    minIntensity: spec.minIntensity ?? null,
  };
}
