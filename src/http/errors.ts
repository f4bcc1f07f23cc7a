/**
 * Errors a request handler throws to answer with a documented status and message. The app's error
 * handler renders them as the data API envelope (docs/api-contract.md "Envelope") on JSON routes;
 * surfaces with another error format (OAuth JSON errors, plain-text bodies, HTML pages) catch them
 * or use their own reply helpers.
 */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    /** Extra response headers, e.g. WWW-Authenticate or Retry-After. */
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
  serverError: 'Server error.',
} as const;

export const badQuery = (name: string) => new HttpError(400, messages.unexpectedQuery(name));
export const notFound = () => new HttpError(404, messages.notFound);
export const forbiddenScope = (scope: string) => new HttpError(403, messages.insufficientScope(scope));
