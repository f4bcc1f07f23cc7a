import type { FastifyRequest } from 'fastify';
import { createInvitation, invitationMadeAfter, MAX_INVITATION_TTL_MS } from '../../accounts/invitations.ts';
import type { AppContext } from '../../context.ts';
import { formOf, singleValue } from '../../http/form.ts';
import { onStop } from '../../http/stop.ts';
import type { App } from '../../http/surface.ts';
import {
  BackgroundScenarios,
  refuseRealBesideSources,
  SCENARIO_LIMITS,
  ScenarioRefused,
} from '../../sources/scenario/run.ts';
import { markup, type SafeHtml } from '../html.ts';
import type { Lang } from '../i18n.ts';
import { fieldError, formatTime, invalidAttrs } from '../layout.ts';
import { livePage, sendLivePage } from '../live-frame.ts';
import { adminPaths, livePaths, paths } from '../paths.ts';
import type { Visit } from '../visit.ts';
import { authOrigin, sendRedirect } from '../web.ts';
import { createOnce, formAlert, newestField, newestId } from '../sent-again.ts';
import { adminNav } from './pages.ts';
import { adminMessages, type AdminText } from './messages.ts';

/**
 * Two administration tools (docs/console-live.md "Administration"): invite a person to sign up
 * (the link shown once), and start an earthquake scenario (docs/sources.md), the console's button
 * for `POST /admin/v1/scenarios`.
 */

const MAX_EMAIL = 254;
const DAY_MS = 86_400_000;

type Fields = Record<string, string>;
type Problems = Partial<Record<string, string>>;

interface ToolView {
  lang: Lang;
  header: SafeHtml;
  csrf: string;
  values?: Fields;
  problems?: Problems;
  /** What the last post did, shown above the form. */
  done?: SafeHtml;
  /** The form's `newest` (the invitation form: src/console/sent-again.ts). */
  newest?: number;
  /** A problem of the whole form, above it. */
  alert?: SafeHtml;
}

function field(
  v: ToolView,
  name: string,
  label: string,
  input: {
    type: string;
    required?: boolean;
    min?: number;
    max?: number;
    step?: string;
    placeholder?: string;
  },
): SafeHtml {
  const problem = v.problems?.[name];
  const id = `tool-${name}`;
  return markup`<label for="${id}">${label}</label>
<input id="${id}" name="${name}" type="${input.type}" value="${v.values?.[name] ?? ''}"${input.required ? markup` required` : null}${
    input.min !== undefined ? markup` min="${input.min}"` : null
  }${input.max !== undefined ? markup` max="${input.max}"` : null}${input.step ? markup` step="${input.step}"` : null}${invalidAttrs(id, problem)}>
${fieldError(id, problem)}`;
}

function renderInvitePage(v: ToolView): string {
  const text = adminMessages[v.lang];
  return livePage(
    v.lang,
    v.header,
    `${text.adminTitle}: ${text.invite}`,
    markup`<div>
${adminNav(text)}
<h1>${text.invite}</h1>
<p>${text.inviteIntro}</p>
${v.done ?? null}
${formAlert(v.alert)}
<form method="post" action="${adminPaths.invite}" novalidate>
<input type="hidden" name="csrf" value="${v.csrf}">
${newestField(v.newest ?? 0)}
${field(v, 'email', text.inviteEmail, { type: 'email' })}
${field(v, 'days', text.inviteDays, { type: 'number', min: 1, max: MAX_INVITATION_TTL_MS / DAY_MS })}
<button type="submit">${text.inviteButton}</button>
</form>
</div>`,
  );
}

function renderScenarioPage(v: ToolView): string {
  const text = adminMessages[v.lang];
  const [latMin, latMax] = SCENARIO_LIMITS.latitude;
  const [lonMin, lonMax] = SCENARIO_LIMITS.longitude;
  const [depthMin, depthMax] = SCENARIO_LIMITS.depthKm;
  const [magMin, magMax] = SCENARIO_LIMITS.magnitude;
  const [speedMin, speedMax] = SCENARIO_LIMITS.speed;
  return livePage(
    v.lang,
    v.header,
    `${text.adminTitle}: ${text.scenario}`,
    markup`<div>
${adminNav(text)}
<h1>${text.scenario}</h1>
<p>${text.scenarioIntro}</p>
${v.done ?? null}
<form method="post" action="${adminPaths.scenario}" novalidate>
<input type="hidden" name="csrf" value="${v.csrf}">
${field(v, 'latitude', text.latitude, { type: 'number', required: true, min: latMin, max: latMax, step: 'any' })}
${field(v, 'longitude', text.longitude, { type: 'number', required: true, min: lonMin, max: lonMax, step: 'any' })}
${field(v, 'depth', text.depth, { type: 'number', required: true, min: depthMin, max: depthMax, step: 'any' })}
${field(v, 'magnitude', text.magnitude, { type: 'number', required: true, min: magMin, max: magMax, step: 'any' })}
${field(v, 'speed', text.speed, { type: 'number', min: speedMin, max: speedMax, step: 'any', placeholder: '1' })}
<label for="tool-asReal"><input type="checkbox" id="tool-asReal" name="asReal" value="1"${v.values?.asReal ? markup` checked` : null}${
      v.problems?.asReal ? markup` aria-invalid="true" aria-describedby="tool-asReal-error"` : null
    }> ${text.asReal}</label>
${v.problems?.asReal ? markup`<p class="error" id="tool-asReal-error">${v.problems.asReal}</p>` : null}
<button type="submit">${text.scenarioButton}</button>
</form>
</div>`,
  );
}

/** A number of the form within [min, max], or the problem to show beside its field. */
function numberIn(
  values: Fields,
  problems: Problems,
  name: string,
  [min, max]: readonly [number, number],
  text: AdminText,
  fallback?: number,
): number {
  const raw = values[name] ?? '';
  if (raw === '' && fallback !== undefined) return fallback;
  const value = raw.length <= 32 && /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : NaN;
  if (!(value >= min && value <= max)) problems[name] = `${text.outOfRange} ${min} – ${max}`;
  return value;
}

/** The posted fields of the tools' forms (the area's gate checked the form's CSRF token). */
function postedFields(request: FastifyRequest): Fields {
  const form = formOf(request) ?? new Map<string, string[]>();
  const values: Fields = {};
  for (const name of ['email', 'days', 'latitude', 'longitude', 'depth', 'magnitude', 'speed', 'asReal']) {
    const value = singleValue(form, name);
    if (value !== null) values[name] = value.trim();
  }
  return values;
}

const view = (visit: Visit, rest: Partial<ToolView> = {}): ToolView => ({
  lang: visit.lang,
  header: visit.header('admin', adminPaths.status),
  csrf: visit.csrf,
  ...rest,
});

export function registerAdminTools(scope: App, ctx: AppContext): void {
  registerInvite(scope, ctx);
  registerScenario(scope, ctx);
}

/** Invite a person to sign up: the link is shown once. */
function registerInvite(scope: App, ctx: AppContext): void {
  const invitePage = async (visit: Visit, rest: Partial<ToolView> = {}) =>
    renderInvitePage(
      view(visit, { ...rest, newest: await newestId(ctx.db, 'invitations', visit.account.id) }),
    );
  scope.get(adminPaths.invite, async (request, reply) =>
    sendLivePage(reply, 200, await invitePage(request.visit)),
  );

  scope.post(adminPaths.invite, async (request, reply) => {
    const { visit } = request;
    const values = postedFields(request);
    const text = adminMessages[visit.lang];
    const problems: Problems = {};
    const email = values.email ?? '';
    if (email.length > MAX_EMAIL || (email !== '' && !/^[^\s@]+@[^\s@]+$/.test(email)))
      problems.email = text.badEmail;
    const days = numberIn(values, problems, 'days', [1, MAX_INVITATION_TTL_MS / DAY_MS], text, 7);
    if (problems.days === undefined && !Number.isInteger(days)) problems.days = text.wholeDays;
    if (Object.keys(problems).length > 0)
      return sendLivePage(reply, 400, await invitePage(visit, { values, problems }));
    // Sent again (a reload of the answer, Back and resend, a double click): no second link.
    const outcome = await createOnce(ctx.db, visit.account.id, formOf(request) ?? new Map(), {
      madeAfter: (q, newest) => invitationMadeAfter(q, visit.account.id, newest, email || null),
      create: (q) =>
        createInvitation(q, ctx.pepper, {
          now: ctx.clock.now(),
          ttlMs: days * DAY_MS,
          email: email || null,
          createdBy: visit.account.id,
        }),
    });
    if ('made' in outcome) {
      const alert = markup`${text.inviteSentAlready.replace('{id}', String(outcome.made))}`;
      return sendLivePage(reply, 409, await invitePage(visit, { values, alert }));
    }
    const { token, expiresAt } = outcome.created;
    const link = `${authOrigin(ctx, request)}${paths.signup}?invitation=${encodeURIComponent(token)}`;
    const done = markup`<div role="status" id="tool-result"><p>${text.invited} ${formatTime(expiresAt)}</p>
<p><code id="invitation-link">${link}</code></p><p class="muted">${text.shownOnce}</p></div>`;
    return sendLivePage(reply, 201, await invitePage(visit, { done }));
  });
}

/** Start an earthquake scenario; it runs in the background until done or shutdown. */
function registerScenario(scope: App, ctx: AppContext): void {
  // The server's stop waits for the telegram each scenario is storing.
  const scenarios = new BackgroundScenarios(ctx, ctx.stopping);
  onStop(scope, 'preClose', () => scenarios.settled());
  scope.get<{ Querystring: Record<string, string | undefined> }>(
    adminPaths.scenario,
    async (request, reply) => {
      const { visit } = request;
      const started = startedFrom(request.query);
      const done = started ? scenarioStarted(adminMessages[visit.lang], started) : undefined;
      return sendLivePage(reply, 200, renderScenarioPage(view(visit, { done })));
    },
  );

  scope.post(adminPaths.scenario, async (request, reply) => {
    const { visit } = request;
    const values = postedFields(request);
    const text = adminMessages[visit.lang];
    const problems: Problems = {};
    const latitude = numberIn(values, problems, 'latitude', SCENARIO_LIMITS.latitude, text);
    const longitude = numberIn(values, problems, 'longitude', SCENARIO_LIMITS.longitude, text);
    const depthKm = numberIn(values, problems, 'depth', SCENARIO_LIMITS.depthKm, text);
    const magnitude = numberIn(values, problems, 'magnitude', SCENARIO_LIMITS.magnitude, text);
    const speed = numberIn(values, problems, 'speed', SCENARIO_LIMITS.speed, text, 1);
    const asReal = values.asReal === '1';
    try {
      refuseRealBesideSources(ctx.config, asReal);
    } catch (err) {
      if (!(err instanceof ScenarioRefused)) throw err;
      problems.asReal = text.realRefused;
    }
    if (Object.keys(problems).length > 0)
      return sendLivePage(reply, 400, renderScenarioPage(view(visit, { values, problems })));
    const started = scenarios.start({ latitude, longitude, depthKm, magnitude, asReal }, speed);
    // Answered by a redirect: a reload of the answer shows it again instead of starting another
    // earthquake (Post/Redirect/Get).
    const query = new URLSearchParams({
      started: started.eventId,
      telegrams: String(started.telegrams.length),
      real: asReal ? '1' : '0',
    });
    return sendRedirect(reply, `${visit.origin}${adminPaths.scenario}?${query}`);
  });
}

interface StartedScenario {
  eventId: string;
  telegrams: number;
  asReal: boolean;
}

/** The scenario a redirect after its start names, or null (anything else in the query is ignored). */
function startedFrom(query: Record<string, string | undefined>): StartedScenario | null {
  const { started, telegrams, real } = query;
  if (typeof started !== 'string' || !/^\d{14}$/.test(started)) return null;
  if (typeof telegrams !== 'string' || !/^\d{1,4}$/.test(telegrams)) return null;
  return { eventId: started, telegrams: Number(telegrams), asReal: real === '1' };
}

function scenarioStarted(text: AdminText, started: StartedScenario): SafeHtml {
  return markup`<p role="status" id="tool-result">${text.scenarioStarted} ${started.eventId} (${
    started.asReal ? text.real : text.training
  }, ${started.telegrams} ${text.telegrams}). <a href="${livePaths.live}">${text.watchLive}</a></p>`;
}
