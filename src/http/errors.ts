import type { FastifyError, FastifySchemaValidationError } from 'fastify';
import { catalogueMessage, CodedError, errorCatalogue, type ErrorCode } from '../errors.ts';
import { isDatabaseUnavailable } from '../db/unavailable.ts';

/**
 * How every error becomes a status, a message and headers (the error catalogue, src/errors.ts).
 * The app's error handler renders them as the data API envelope (docs/api-contract.md
 * "Envelope") on JSON routes; surfaces with another body format (plain-text bodies, HTML pages)
 * render the same description their own way; OAuth endpoints have their own.
 */

/** An error of the data API, answered with a catalogue entry. */
export class HttpError extends CodedError {}

/** The catalogue entry of a status Fastify answers on its own, for the client errors it may raise. */
const CLIENT_ERRORS: Readonly<Record<number, ErrorCode>> = {
  400: 'BAD_REQUEST',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'TOO_MANY_REQUESTS',
};

/** Fastify's own error codes that have an entry of their own. */
const FASTIFY_ERRORS: Readonly<Record<string, ErrorCode>> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
};

export const badQuery = (name: string) => new HttpError('UNEXPECTED_QUERY', { detail: name });

/** What a response says about an error. */
export interface ErrorDescription {
  status: number;
  message: string;
  headers: Readonly<Record<string, string>>;
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
    if (params.missingProperty) return catalogueMessage('QUERY_REQUIRED');
    const name = step ?? params.additionalProperty;
    if (!name) return undefined;
    const message = v.keyword === 'type' ? undefined : fieldMessages[name];
    return message ?? catalogueMessage('UNEXPECTED_QUERY', name);
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
  return (errors, context) => {
    const message = validationMessage(errors, context, fieldMessages, rootMessage);
    return message === undefined
      ? new HttpError('BAD_REQUEST')
      : new HttpError('INVALID_FIELD', { detail: message });
  };
}

function defaultValidationMessage(err: FastifyError): string {
  return (
    validationMessage(err.validation ?? [], err.validationContext) ??
    (err.message.replace(/^(body|querystring|params|headers)\/?/, '').trim() ||
      catalogueMessage('BAD_REQUEST'))
  );
}

/** Status, message and headers for an error no handler dealt with. */
export function describeError(err: FastifyError | CodedError): ErrorDescription {
  if (err instanceof CodedError) return { status: err.statusCode, message: err.answer, headers: err.headers };
  // A database outage passes by itself: the client is told when to try again.
  if (isDatabaseUnavailable(err))
    return { ...entry('DATABASE_UNAVAILABLE'), headers: { 'retry-after': '5' } };
  return { ...describeFastifyError(err), headers: {} };
}

const entry = (code: ErrorCode) => ({ status: errorCatalogue[code].status, message: catalogueMessage(code) });

function describeFastifyError(err: FastifyError): { status: number; message: string } {
  if (err.validation) return { status: 400, message: defaultValidationMessage(err) };
  const known = FASTIFY_ERRORS[err.code];
  if (known) return entry(known);
  // SQLSTATE class 22 (data exception: a NUL in text, an out-of-range number…) comes from input
  // that no valid request carries; domain code screens most of it, this is the safety net.
  if (typeof err.code === 'string' && /^22[0-9A-Z]{3}$/.test(err.code)) return entry('BAD_REQUEST');
  const status = err.statusCode ?? 500;
  // Framework messages name internals; a client error gets the standard message of its status.
  if (status >= 400 && status < 500) {
    const code = CLIENT_ERRORS[status];
    return code ? { status, message: catalogueMessage(code) } : entry('BAD_REQUEST');
  }
  return entry('SERVER_ERROR');
}
