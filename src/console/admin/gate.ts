import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.ts';
import { formOf, singleValue } from '../../http/form.ts';
import { adminPaths } from '../paths.ts';
import { sessionCsrfValid } from '../signin/session-cookies.ts';
import type { VisitGate } from '../visit.ts';
import { sendErrorPage } from '../web.ts';
import { adminMessages } from './messages.ts';

/**
 * Who may use the administration: an administrator's visit (sign-in leads back to the status
 * page; anyone else signed in gets 404), whose posts carry the session's CSRF token — in the form,
 * or, for a form whose body is checked only after its sender (`query`), in the action's query.
 */
export function adminGate(ctx: AppContext, csrfIn: 'form' | 'query'): VisitGate {
  const submitted = (request: FastifyRequest) =>
    csrfIn === 'query'
      ? (request.query as { csrf?: unknown }).csrf
      : singleValue(formOf(request) ?? new Map(), 'csrf');
  return {
    returnTo: () => adminPaths.status,
    forms: false,
    admit(visit, request, reply) {
      const text = adminMessages[visit.lang];
      if (!visit.account.isAdmin) {
        void sendErrorPage(reply, 404, text.notFound);
        return false;
      }
      if (request.method === 'POST' && !sessionCsrfValid(ctx, visit.session, submitted(request))) {
        void sendErrorPage(reply, 403, text.formExpired);
        return false;
      }
      return true;
    },
  };
}
