import type { FastifyReply } from 'fastify';
import { sharedPlugin, sharedPlugins } from './plugins.ts';
import type { App, AppPlugin } from './surface.ts';

/** How a surface writes an error for requests under its path prefix that reach no route. */
export type PathErrorRenderer = (reply: FastifyReply, status: number, message: string) => void;

declare module 'fastify' {
  interface FastifyInstance {
    /** Error formats by path prefix, for answers given before any route runs (longest prefix first). */
    pathErrorRenderers: { prefix: string; render: PathErrorRenderer }[];
  }
}

/** Holds the error formats: the app's 404s and framework errors read them, surfaces add theirs. */
export const pathErrors: AppPlugin = sharedPlugin(sharedPlugins.pathErrors, async (app) => {
  app.decorate('pathErrorRenderers', []);
});

/** Registers the error format of the paths under `prefix` (docs/api-contract.md "Errors"). */
export function renderPathErrors(app: App, prefix: string, render: PathErrorRenderer): void {
  app.pathErrorRenderers.push({ prefix, render });
  app.pathErrorRenderers.sort((a, b) => b.prefix.length - a.prefix.length);
}

/** The renderer registered for a path, if any. */
export function pathErrorRenderer(app: App, path: string): PathErrorRenderer | undefined {
  return app.pathErrorRenderers.find((r) => path.startsWith(r.prefix))?.render;
}
