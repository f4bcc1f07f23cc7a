import { Type } from 'typebox';
import { getAccount } from '../accounts/accounts.ts';
import type { AppContext } from '../context.ts';
import { okBody } from '../http/envelope.ts';
import { documentedValidation, HttpError } from '../http/errors.ts';
import { onStop } from '../http/stop.ts';
import type { App } from '../http/surface.ts';
import { BackgroundScenarios, refuseRealBesideSources, SCENARIO_LIMITS } from '../sources/scenario/run.ts';
import { errorResponses } from './schemas.ts';

/** The scope of admin ingest: a scenario is an ingest of generated telegrams. */
const SCOPE = 'admin.telegram.ingest';

const range = (name: keyof typeof SCENARIO_LIMITS, description: string) =>
  Type.Number({ minimum: SCENARIO_LIMITS[name][0], maximum: SCENARIO_LIMITS[name][1], description });

const ScenarioBody = Type.Object(
  {
    type: Type.Literal('earthquake', { description: 'The kind of scenario (earthquake only)' }),
    latitude: range('latitude', 'Epicentre latitude, degrees'),
    longitude: range('longitude', 'Epicentre longitude, degrees'),
    depth: range('depthKm', 'Hypocentre depth, km'),
    magnitude: range('magnitude', 'Magnitude (Mj)'),
    asReal: Type.Optional(
      Type.Boolean({ description: '通常 instead of 訓練 (development only; refused beside a live source)' }),
    ),
    speed: Type.Optional(range('speed', 'Time compression (default 1: real time)')),
  },
  { additionalProperties: false },
);

const limits = (name: keyof typeof SCENARIO_LIMITS) =>
  `from ${SCENARIO_LIMITS[name][0]} to ${SCENARIO_LIMITS[name][1]}`;

/** Documented messages of the body's fields (docs/sources.md "POST /admin/v1/scenarios"). */
const bodyMessages = {
  type: 'The `type` must be `earthquake`.',
  latitude: `The \`latitude\` must be a number ${limits('latitude')}.`,
  longitude: `The \`longitude\` must be a number ${limits('longitude')}.`,
  depth: `The \`depth\` must be a number ${limits('depthKm')}.`,
  magnitude: `The \`magnitude\` must be a number ${limits('magnitude')}.`,
  asReal: 'The `asReal` must be a boolean.',
  speed: `The \`speed\` must be a number ${limits('speed')}.`,
};
const BAD_BODY =
  'The body must be a JSON object with `type`, `latitude`, `longitude`, `depth` and `magnitude`.';

const ScenarioStarted = Type.Object({
  responseId: Type.String(),
  responseTime: Type.String(),
  status: Type.Literal('ok'),
  eventId: Type.String(),
  originTime: Type.String(),
  test: Type.Boolean(),
  telegrams: Type.Array(Type.Object({ type: Type.String(), offsetMs: Type.Number() })),
});

/**
 * POST /admin/v1/scenarios — starts an earthquake scenario (docs/sources.md) for an
 * administrator holding `admin.telegram.ingest`, and answers 202 with its EventID and the telegrams
 * it will issue; they are ingested in the background at their times divided by `speed`. Scenarios
 * under way stop when the server shuts down, which waits for the telegram each is storing.
 */
export function registerAdminScenarios(app: App, ctx: AppContext): void {
  const scenarios = new BackgroundScenarios(ctx, ctx.stopping);
  onStop(app, 'preClose', () => scenarios.settled());
  app.post(
    '/admin/v1/scenarios',
    {
      config: { scopes: [SCOPE], fresh: true },
      schema: {
        summary: 'Start an earthquake scenario',
        description:
          'Generates the telegrams of an earthquake (EEW, intensity, hypocentre, tsunami when due) and ' +
          'ingests them over the following minutes. 訓練 unless `asReal`. Administrators only.',
        tags: ['admin'],
        body: ScenarioBody,
        response: { 202: ScenarioStarted, ...errorResponses, 409: errorResponses[400] },
      },
      schemaErrorFormatter: documentedValidation(bodyMessages, BAD_BODY),
    },
    async (request, reply) => {
      const account = await getAccount(ctx.db, request.principal.accountId);
      if (!account?.isAdmin) throw new HttpError('INSUFFICIENT_SCOPE', { detail: SCOPE });
      const { latitude, longitude, depth, magnitude, asReal = false, speed = 1 } = request.body;
      // A ScenarioRefused is answered as its catalogue entry: 409 REAL_SCENARIO_REFUSED.
      refuseRealBesideSources(ctx.config, asReal);
      const params = { latitude, longitude, depthKm: depth, magnitude, asReal };
      const started = scenarios.start(params, speed);
      reply.code(202);
      return okBody(
        {
          eventId: started.eventId,
          originTime: started.originTime,
          test: !asReal,
          telegrams: started.telegrams,
        },
        ctx.clock.now(),
      );
    },
  );
}
