import type { Surface } from '../../http/surface.ts';
import { registerAdminConsole } from '../admin/routes.ts';
import { registerLiveConsole } from './routes.ts';

/** The live view, event and telegram pages, and the administration pages (docs/console-live.md). */
export const registerLiveAndAdminConsole: Surface = async (app, ctx) => {
  const feed = await registerLiveConsole(app, ctx);
  await registerAdminConsole(app, ctx, feed);
};
