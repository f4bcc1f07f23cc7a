import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.ts';
import { publicUrls } from '../../http/public-urls.ts';
import { csrfToken, csrfValid } from './csrf.ts';
import {
  createSession,
  deleteSession,
  findSession,
  SESSION_TTL_MS,
  type WebSession,
} from './signin-sessions.ts';
import { parseCookies, serializeCookie } from './cookies.ts';

/**
 * The browser side of sign-in sessions: which cookie holds the session, and which value each form's
 * CSRF token is bound to (the session once signed in; a pre-sign-in cookie on the sign-in form).
 */

const PRE_SIGNIN_TTL_S = 3600;

function isSecure(ctx: AppContext, request: FastifyRequest): boolean {
  // The origin of the console's pages (web.ts `authOrigin`).
  return publicUrls(ctx.config, request).auth.startsWith('https:');
}

/** `__Host-` names on https: the browser then refuses them from subdomains or without Secure. */
function cookieNames(secure: boolean) {
  const prefix = secure ? '__Host-' : '';
  return { session: `${prefix}namazu_session`, preSignin: `${prefix}namazu_signin` };
}

export async function currentSession(ctx: AppContext, request: FastifyRequest): Promise<WebSession | null> {
  const token = parseCookies(request.headers.cookie).get(cookieNames(isSecure(ctx, request)).session);
  return token ? findSession(ctx.db, ctx.pepper, ctx.clock, token) : null;
}

export function sessionCsrf(ctx: AppContext, session: WebSession): string {
  return csrfToken(ctx.pepper, `session:${session.digest}`);
}

export function sessionCsrfValid(ctx: AppContext, session: WebSession, submitted: unknown): boolean {
  return csrfValid(ctx.pepper, `session:${session.digest}`, submitted);
}

/** The sign-in form's CSRF token, setting the pre-sign-in cookie it is bound to when missing. */
export function preSigninCsrf(ctx: AppContext, request: FastifyRequest, reply: FastifyReply): string {
  const secure = isSecure(ctx, request);
  const name = cookieNames(secure).preSignin;
  let value = parseCookies(request.headers.cookie).get(name);
  if (!value || !/^[A-Za-z0-9_-]{43}$/.test(value)) {
    value = randomBytes(32).toString('base64url');
    reply.header('set-cookie', serializeCookie(name, value, { maxAge: PRE_SIGNIN_TTL_S, secure }));
  }
  return csrfToken(ctx.pepper, `pre:${value}`);
}

export function preSigninCsrfValid(ctx: AppContext, request: FastifyRequest, submitted: unknown): boolean {
  const value = parseCookies(request.headers.cookie).get(cookieNames(isSecure(ctx, request)).preSignin);
  return value !== undefined && csrfValid(ctx.pepper, `pre:${value}`, submitted);
}

/**
 * Starts a session for the account and sets its cookie (the pre-sign-in cookie is dropped). A
 * session the browser already had is ended: a sign-in never continues an earlier session.
 */
export async function signIn(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  accountId: number,
): Promise<void> {
  const secure = isSecure(ctx, request);
  const names = cookieNames(secure);
  const previous = await currentSession(ctx, request);
  if (previous) await deleteSession(ctx.db, previous.digest);
  const { token } = await createSession(ctx.db, ctx.pepper, ctx.clock, accountId);
  reply.header('set-cookie', [
    serializeCookie(names.session, token, { maxAge: SESSION_TTL_MS / 1000, secure }),
    serializeCookie(names.preSignin, '', { maxAge: 0, secure }),
  ]);
}

export async function signOut(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  session: WebSession,
): Promise<void> {
  const secure = isSecure(ctx, request);
  await deleteSession(ctx.db, session.digest);
  reply.header('set-cookie', serializeCookie(cookieNames(secure).session, '', { maxAge: 0, secure }));
}
