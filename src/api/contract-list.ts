import { contractList } from '../accounts/contracts.ts';
import type { AppContext } from '../context.ts';
import type { App } from '../http/surface.ts';
import { okBody } from '../http/envelope.ts';
import { ContractList, errorResponses } from './schemas.ts';

/** GET {base_url}/v2/contract — every plan, contracted or not (docs/api-contract.md "Contracts and plans"). */
export function registerContractList(app: App, ctx: AppContext): void {
  app.get(
    '/v2/contract',
    {
      // Contract operations check revocation at once (docs/api-contract.md "Credentials").
      config: { scopes: ['contract.list'], fresh: true },
      schema: {
        summary: 'Contract list',
        description:
          'Every plan with the account’s running contract where there is one. Scope `contract.list`.',
        tags: ['contracts'],
        response: { 200: ContractList, ...errorResponses },
      },
    },
    async (request) => {
      const items = (await contractList(ctx.db, request.principal.accountId)).map((c) => ({
        id: c.id,
        planId: c.plan.id,
        planName: c.plan.name,
        classification: c.plan.classification,
        classifications: c.plan.classification,
        price: c.plan.price,
        start: c.start?.toISOString() ?? null,
        isValid: c.isValid,
        connectionCounts: c.plan.connectionCounts,
      }));
      return okBody({ items }, ctx.clock.now());
    },
  );
}
