import type { AppContext } from '../context.ts';
import type { App } from '../http/surface.ts';
import { registerAdminIngest } from './admin-ingest.ts';
import { registerAdminScenarios } from './admin-scenarios.ts';
import { registerContractList } from './contract-list.ts';
import { contractedLookup } from './contracted.ts';
import { registerGdRoutes } from './gd-routes.ts';
import { registerParameterRoutes } from './parameter-routes.ts';
import { registerTelegramBody } from './telegram-body.ts';
import { registerTelegramLists } from './telegram-lists.ts';
import { sharedPlugins, surfacePlugin } from '../http/plugins.ts';

/** The data API surface: telegram lists and bodies, contracts, station parameters, admin ingest. */
export const dataApi = surfacePlugin('namazu-data-api', registerDataApi, [
  sharedPlugins.authentication,
  sharedPlugins.pathErrors,
  sharedPlugins.uploadLimit,
]);

async function registerDataApi(app: App, ctx: AppContext): Promise<void> {
  const cache = ctx.telegrams;
  const contracted = await contractedLookup(app, ctx);
  registerTelegramLists(app, ctx, { cache, contracted });
  await registerTelegramBody(app, ctx, { contracted });
  registerContractList(app, ctx);
  registerGdRoutes(app, ctx, { contracted, telegrams: cache });
  registerParameterRoutes(app, ctx, { lists: ctx.stations, contracted });
  await registerAdminIngest(app, ctx);
  registerAdminScenarios(app, ctx);
}
