import type { App } from './surface.ts';

/** Closes this process's connection of a socket session, if it holds one. */
export type LocalSocketCloser = (socketId: number) => void;

declare module 'fastify' {
  interface FastifyInstance {
    /** Set by the real-time surface; the data API calls them when an account closes a session. */
    localSocketClosers: LocalSocketCloser[];
  }
}

/** The real-time surface registers how it closes a connection it holds (docs/realtime.md). */
export function onLocalSocketClose(app: App, closer: LocalSocketCloser): void {
  app.localSocketClosers.push(closer);
}

/** Closes the session's connection at once when this process holds it (no bus involved). */
export function closeLocalSocket(app: App, socketId: number): void {
  for (const close of app.localSocketClosers) close(socketId);
}
