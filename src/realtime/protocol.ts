/**
 * The `service.v2` WebSocket protocol (docs/api-contract.md "WebSocket protocol"): close codes,
 * server message builders and the parser of client messages. Pure functions; the endpoint and the
 * hub do the I/O.
 */
import { randomBytes } from 'node:crypto';
import { CLOSED_BY_ACCOUNT, CONNECTION_LIMIT } from '../sessions/socket-sessions.ts';
import type { TelegramRecord } from '../telegrams/record.ts';

/** Subprotocols a client may offer; the one offered is echoed back. */
const ACCEPTED_PROTOCOLS = ['service.v2', 'dmdata.v2'] as const;

/** Application close codes, also sent as `code` of the preceding `error` message. */
export const closeCodes = {
  missingTicket: 4400,
  unknownTicket: 4404,
  connectionLimit: CONNECTION_LIMIT,
  serverRestart: 4503,
  pingIdMismatch: 4640,
  notJson: 4641,
  contractEnded: 4807,
  closedByAccount: CLOSED_BY_ACCOUNT,
  pingTimeout: 4891,
} as const;

export const closeMessages = {
  missingTicket: 'The ticket is required.',
  unknownTicket: 'The ticket is invalid, used or expired.',
  connectionLimit: 'The maximum number of simultaneous connections is full.',
  limitLowered: 'The connection limit of the account went down; this connection is beyond it.',
  serverRestart: 'The server is restarting; reconnect.',
  slowConsumer: 'The connection cannot keep up with delivery; reconnect.',
  internalError: 'Internal server error; reconnect.',
  pingIdMismatch: 'The pingId of the pong does not match the latest ping.',
  notJson: 'The message is not valid JSON.',
  contractEnded: 'The contract has ended; nothing is left to deliver.',
  closedByAccount: 'The WebSocket was closed by the account.',
  cutOff: 'The credential of the WebSocket was revoked, or its account was disabled.',
  pingTimeout: 'No pong was received in time.',
} as const;

/**
 * Picks the subprotocol to echo: the first accepted one the client offered, or none. A handshake
 * with no (or only unknown) subprotocols still succeeds — existing clients offer either or none.
 */
export function chooseSubprotocol(offered: ReadonlySet<string>): string | false {
  for (const p of offered) if ((ACCEPTED_PROTOCOLS as readonly string[]).includes(p)) return p;
  return false;
}

export interface StartInfo {
  socketId: number;
  classifications: readonly string[];
  types: readonly string[] | null;
  test: 'no' | 'including';
  formats: readonly string[];
  appName: string | null;
}

export function startMessage(info: StartInfo, now: number): string {
  return JSON.stringify({
    type: 'start',
    socketId: info.socketId,
    classifications: info.classifications,
    types: info.types,
    test: info.test,
    formats: info.formats,
    appName: info.appName,
    time: new Date(now).toISOString(),
  });
}

/** A short random ping identifier. */
export function newPingId(): string {
  return randomBytes(6).toString('base64url');
}

export function pingMessage(pingId: string): string {
  return JSON.stringify({ type: 'ping', pingId });
}

export function pongMessage(pingId: string | undefined): string {
  return JSON.stringify(pingId === undefined ? { type: 'pong' } : { type: 'pong', pingId });
}

export function errorMessage(error: string, code: number, close: boolean): string {
  return JSON.stringify({ type: 'error', error, code, close });
}

/** One hop a telegram went through before reaching the client. */
export interface PassingHop {
  name: string;
  /** ISO 8601 UTC with milliseconds. */
  time: string;
}

/**
 * The `data` message for one telegram, serialised into the Buffer that is sent unchanged to every
 * socket of every subscription group that receives it.
 */
export function dataMessage(record: TelegramRecord, passing: readonly PassingHop[]): Buffer {
  const head: Record<string, unknown> = { type: record.head.type, author: record.head.author };
  if (record.head.target !== undefined) head.target = record.head.target;
  head.time = record.head.time;
  head.designation = record.head.designation;
  head.test = record.head.test;
  // A JSON conversion's head has no `xml` flag; it names its source and schema instead.
  if (!record.conversion) head.xml = record.head.xml;
  const message: Record<string, unknown> = {
    type: 'data',
    version: '2.0',
    classification: record.classification,
    id: record.id,
    ...(record.conversion ? { originalId: record.conversion.originalId } : {}),
    passing,
    head,
  };
  if (record.xmlReport) message.xmlReport = record.xmlReport;
  message.format = record.format;
  if (record.conversion) message.schema = record.conversion.schema;
  message.compression = record.compression;
  message.encoding = record.encoding;
  message.body = record.body.toString(record.encoding === 'base64' ? 'base64' : 'utf8');
  return Buffer.from(JSON.stringify(message));
}

/** Client → server messages the protocol defines. */
export type ClientMessage =
  | { type: 'ping'; pingId?: string }
  | { type: 'pong'; pingId: string | undefined }
  | { type: 'other' }
  | { type: 'invalid' };

/** Parses one client frame; `invalid` when it is not a JSON object. Unknown types are ignored. */
export function parseClientMessage(raw: string): ClientMessage {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return { type: 'invalid' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { type: 'invalid' };
  const { type, pingId } = value as { type?: unknown; pingId?: unknown };
  const id = typeof pingId === 'string' || typeof pingId === 'number' ? String(pingId) : undefined;
  if (type === 'ping') return id === undefined ? { type: 'ping' } : { type: 'ping', pingId: id };
  if (type === 'pong') return { type: 'pong', pingId: id };
  return { type: 'other' };
}
