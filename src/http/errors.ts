import type { FastifyError, FastifySchemaValidationError } from 'fastify';
import { AuthError } from '../auth/auth-error.ts';
import { dpopAlgorithms } from '../auth/dpop.ts';

/**
 * Errors a request handler throws to answer with a documented status and message, and how every
 * error becomes a status, a message and headers. The app's error handler renders them as the data
 * API envelope (docs/api-contract.md "Envelope") on JSON routes; surfaces with another body format (plain-text
 * bodies, HTML pages) render the same description their own way; OAuth endpoints have their own.
 */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    /** Extra response headers, e.g. Retry-After. */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** Standard messages (docs/api-contract.md "Errors"). */
export const messages = {
  queryRequired: 'The query parameters are required.',
  unexpectedQuery: (name: string) => `Unexpected data of search query \`${name}\`.`,
  authRequired: 'Authentication required.',
  insufficientScope: (scope: string) => `Insufficient scope for \`${scope}\`.`,
  notFound: 'Not found.',
  methodNotAllowed: 'Method not allowed.',
  payloadTooLarge: 'Payload too large.',
  tooManyRequests: 'Too many requests.',
  badRequest: 'Bad request.',
  requestTimeout: 'Request timeout.',
  headersTooLarge: 'Request header fields too large.',
  busy: 'Service busy.',
  serverError: 'Server error.',
} as const;

const CLIENT_ERROR_MESSAGES: Readonly<Record<number, string>> = {
  400: 'Bad request.',
  404: messages.notFound,
  405: messages.methodNotAllowed,
  413: messages.payloadTooLarge,
  415: 'Unsupported media type.',
  429: messages.tooManyRequests,
};

export const badQuery = (name: string) => new HttpError(400, messages.unexpectedQuery(name));

/** What a response says about an error. */
export interface ErrorDescription {
  status: number;
  message: string;
  headers: Record<string, string>;
}

const DPOP_ALGS = `algs="${dpopAlgorithms.join(' ')}"`;

/**
 * The challenge of a refused credential: RFC 6750 §3 (Bearer) or RFC 9449 §7.1 (DPoP). A missing
 * scope (403) carries no challenge.
 */
function authErrorHeaders(err: AuthError): Record<string, string> {
  if (err.status === 403) return {};
  const params = err.scheme === 'DPoP' ? ['realm="namazu"', DPOP_ALGS] : (['realm="namazu"'] as string[]);
  if (err.code) params.push(`error="${err.code}"`, `error_description="${err.description ?? ''}"`);
  const headers: Record<string, string> = { 'www-authenticate': `${err.scheme} ${params.join(', ')}` };
  if (err.nonce) headers['dpop-nonce'] = err.nonce;
  return headers;
}

interface ValidationParams {
  missingProperty?: string;
  additionalProperty?: string;
  requiredProperties?: string[];
}

/**
 * the standard message (docs/api-contract.md "Errors") for a validation failure, or the documented message of the failing
 * field where `fieldMessages` has one (`rootMessage` for a body that is not an object at all). A
 * repeated query parameter (an array where one value belongs) is always "Unexpected data".
 */
function validationMessage(
  errors: readonly FastifySchemaValidationError[],
  context: string | undefined,
  fieldMessages: Readonly<Record<string, string>> = {},
  rootMessage?: string,
): string | undefined {
  const v = errors[0];
  if (!v) return undefined;
  const params = (v.params ?? {}) as ValidationParams;
  const step = v.instancePath.split('/')[1];
  if (context === 'querystring') {
    if (params.missingProperty) return messages.queryRequired;
    const name = step ?? params.additionalProperty;
    if (!name) return undefined;
    const message = v.keyword === 'type' ? undefined : fieldMessages[name];
    return message ?? messages.unexpectedQuery(name);
  }
  const field = step || params.missingProperty || params.requiredProperties?.[0];
  if (field && fieldMessages[field]) return fieldMessages[field];
  return rootMessage;
}

/**
 * A route's `schemaErrorFormatter`, for routes whose fields have documented messages of their own
 * (docs/api-contract.md "Errors").
 */
export function documentedValidation(
  fieldMessages: Readonly<Record<string, string>>,
  rootMessage?: string,
): (errors: FastifySchemaValidationError[], context: string) => Error {
  return (errors, context) =>
    new HttpError(400, validationMessage(errors, context, fieldMessages, rootMessage) ?? 'Bad request.');
}

function defaultValidationMessage(err: FastifyError): string {
  return (
    validationMessage(err.validation ?? [], err.validationContext) ??
    (err.message.replace(/^(body|querystring|params|headers)\/?/, '').trim() || 'Bad request.')
  );
}

/** Status, message and headers for an error no handler dealt with. */
export function describeError(err: FastifyError | HttpError | AuthError): ErrorDescription {
  if (err instanceof HttpError) return { status: err.statusCode, message: err.message, headers: err.headers };
  if (err instanceof AuthError)
    return {
      status: err.status,
      message: err.scope === undefined ? messages.authRequired : messages.insufficientScope(err.scope),
      headers: authErrorHeaders(err),
    };
  return { ...describeFastifyError(err), headers: {} };
}

function describeFastifyError(err: FastifyError): { status: number; message: string } {
  if (err.validation) return { status: 400, message: defaultValidationMessage(err) };
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { status: 413, message: messages.payloadTooLarge };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { status: 415, message: 'Unsupported media type.' };
    default:
      break;
  }
  // SQLSTATE class 22 (data exception: a NUL in text, an out-of-range number…) comes from input
  // that no valid request carries; domain code screens most of it, this is the safety net.
  if (typeof err.code === 'string' && /^22[0-9A-Z]{3}$/.test(err.code))
    return { status: 400, message: 'Bad request.' };
  const status = err.statusCode ?? 500;
  // Framework messages name internals; a client error gets the standard message of its status.
  if (status >= 400 && status < 500) {
    const message = CLIENT_ERROR_MESSAGES[status];
    return message ? { status, message } : { status: 400, message: 'Bad request.' };
  }
  return { status: 500, message: messages.serverError };
}
