import { sharedPlugin, sharedPlugins } from './plugins.ts';
import type { App, AppPlugin } from './surface.ts';

/** Closes this process's connection of a socket session, if it holds one. */
export type LocalSocketCloser = (socketId: number) => void;

declare module 'fastify' {
  interface FastifyInstance {
    /** Set by the real-time surface; the data API calls them when an account closes a session. */
    localSocketClosers: LocalSocketCloser[];
  }
}

/** Holds the closers: the real-time surface adds its own, the data API's socket routes call them. */
export const localSockets: AppPlugin = sharedPlugin(sharedPlugins.localSockets, async (app) => {
  app.decorate('localSocketClosers', []);
});

/** The real-time surface registers how it closes a connection it holds (docs/realtime.md). */
export function onLocalSocketClose(app: App, closer: LocalSocketCloser): void {
  app.localSocketClosers.push(closer);
}

/** Closes the session's connection at once when this process holds it (no bus involved). */
export function closeLocalSocket(app: App, socketId: number): void {
  for (const close of app.localSocketClosers) close(socketId);
}
