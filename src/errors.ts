/**
 * The error catalogue (after fastify's `lib/errors.js`): every error a request can end with, by
 * code, with its HTTP status and its message, `%s` standing for the value the error names. An
 * error class carries its code (`CodedError`); each surface renders an entry in its own format:
 * the data API envelope and its plain-text bodies (http/errors.ts, docs/api-contract.md
 * "Errors"), OAuth's RFC 6749 §5.2 JSON (oauth/token-errors.ts, the code as `error` and the
 * message as `error_description`), the console's HTML pages (console/web.ts).
 */
export const errorCatalogue = {
  // The data API's standard messages (docs/api-contract.md "Errors").
  BAD_REQUEST: { status: 400, message: 'Bad request.' },
  QUERY_REQUIRED: { status: 400, message: 'The query parameters are required.' },
  UNEXPECTED_QUERY: { status: 400, message: 'Unexpected data of search query `%s`.' },
  /** The message a route documents for one of its fields (or for a body that is no object). */
  INVALID_FIELD: { status: 400, message: '%s' },
  TELEGRAM_REJECTED: { status: 400, message: 'Telegram rejected: %s.' },
  AUTH_REQUIRED: { status: 401, message: 'Authentication required.' },
  NO_CONTRACT: { status: 402, message: 'No contract.' },
  INSUFFICIENT_SCOPE: { status: 403, message: 'Insufficient scope for `%s`.' },
  NOT_FOUND: { status: 404, message: 'Not found.' },
  SOCKET_NOT_FOUND: { status: 404, message: 'Socket ID not found.' },
  WEBHOOK_NOT_FOUND: { status: 404, message: 'Webhook ID not found.' },
  WEBHOOK_DELIVERY_NOT_FOUND: { status: 404, message: 'Webhook delivery ID not found.' },
  WEBHOOK_DISABLED: {
    status: 409,
    message: 'The webhook is disabled: enable it again first (POST /v2/webhook/:id/enable).',
  },
  METHOD_NOT_ALLOWED: { status: 405, message: 'Method not allowed.' },
  REQUEST_TIMEOUT: { status: 408, message: 'Request timeout.' },
  SOCKETS_FULL: { status: 409, message: 'The maximum number of simultaneous connections is full.' },
  WEBHOOKS_FULL: { status: 409, message: 'The maximum number of webhooks is reached.' },
  REAL_SCENARIO_REFUSED: { status: 409, message: 'A live source is enabled: `asReal` is refused.' },
  PAYLOAD_TOO_LARGE: { status: 413, message: 'Payload too large.' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'Unsupported media type.' },
  UPGRADE_REQUIRED: {
    status: 426,
    message: 'This is a WebSocket endpoint: connect with a WebSocket client.',
  },
  TOO_MANY_REQUESTS: { status: 429, message: 'Too many requests.' },
  HEADERS_TOO_LARGE: { status: 431, message: 'Request header fields too large.' },
  SERVER_ERROR: { status: 500, message: 'Server error.' },
  BUSY: { status: 503, message: 'Service busy.' },
  DATABASE_UNAVAILABLE: { status: 503, message: 'The database is unavailable; try again shortly.' },
  // OAuth errors (RFC 6749 §5.2, RFC 7009, RFC 9449 §5), named as on the wire; the message is the
  // description. A few are answered with another status where the status says more (405, 413, 429).
  invalid_request: { status: 400, message: '%s' },
  invalid_client: { status: 401, message: '%s' },
  invalid_grant: { status: 400, message: '%s' },
  unauthorized_client: { status: 400, message: '%s' },
  unsupported_grant_type: { status: 400, message: '%s' },
  invalid_scope: { status: 400, message: '%s' },
  invalid_redirect_uri: { status: 400, message: '%s' },
  invalid_code_verifier: { status: 400, message: '%s' },
  invalid_dpop_proof: { status: 400, message: '%s' },
  use_dpop_nonce: { status: 400, message: '%s' },
  server_error: { status: 500, message: '%s' },
  // Errors the authorization endpoint sends to the client's redirect URI (RFC 6749 §4.1.2.1, RFC 7636
  // §4.4.1, and the production service's no_signin for prompt=none without a signed-in user): the
  // browser gets a redirect or a form_post page, so these statuses are not sent.
  access_denied: { status: 403, message: '%s' },
  unsupported_response_type: { status: 400, message: '%s' },
  unsupported_code_challenge_method: { status: 400, message: '%s' },
  no_signin: { status: 403, message: '%s' },
  // Errors of the command line and of the process's own work (sources, ingest, backups, the data
  // directory). No request is meant to end with one: a route that can meet one answers with its own
  // message (the console's sign-up and client forms); one that reaches a route unhandled is a server
  // error, logged with its own message. The command line prints that message and exits with 2 for
  // USAGE and CONFIG_INVALID, 1 for the others (cli/commands.ts).
  USAGE: { status: 500, message: 'Server error.' },
  CONFIG_INVALID: { status: 500, message: 'Server error.' },
  DATA_DIR_LOCKED: { status: 500, message: 'Server error.' },
  DATA_DIR_SERVED: { status: 500, message: 'Server error.' },
  ADMIN_CHANNEL_BROKEN: { status: 500, message: 'Server error.' },
  ACCOUNT_REFUSED: { status: 500, message: 'Server error.' },
  CLIENT_REGISTRATION_REFUSED: { status: 500, message: 'Server error.' },
  BACKUP_FAILED: { status: 500, message: 'Server error.' },
  ARCHIVE_DAMAGED: { status: 500, message: 'Server error.' },
  STATION_LIST_INVALID: { status: 500, message: 'Server error.' },
  XML_REJECTED: { status: 500, message: 'Server error.' },
  PREPARE_OVER_BUDGET: { status: 500, message: 'Server error.' },
  FETCH_FAILED: { status: 500, message: 'Server error.' },
  FETCH_ATTEMPT_FAILED: { status: 500, message: 'Server error.' },
  ATOM_REJECTED: { status: 500, message: 'Server error.' },
  UPSTREAM_REJECTED: { status: 500, message: 'Server error.' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof errorCatalogue;

/** An entry's message with the value it names. */
export function catalogueMessage(code: ErrorCode, detail = ''): string {
  // A function, not a string: a replacement string would read `$&`, `$'`… of the detail as patterns.
  return errorCatalogue[code].message.replace('%s', () => detail);
}

export interface CodedErrorOptions {
  /** The value the entry's message names (`%s`). */
  detail?: string;
  /** Headers that go with the answer (Retry-After, a challenge). */
  headers?: Readonly<Record<string, string>>;
  /** Another status than the entry's, where a surface documents one. */
  statusCode?: number;
  /** The error's own message, for logs and the command line, when it says more than the answer. */
  message?: string;
}

/** An error that ends a request as one catalogue entry; `answer` is what a response says. */
export class CodedError extends Error {
  readonly statusCode: number;
  readonly answer: string;
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    readonly code: ErrorCode,
    options: CodedErrorOptions = {},
  ) {
    const answer = catalogueMessage(code, options.detail);
    super(options.message ?? answer);
    this.answer = answer;
    this.statusCode = options.statusCode ?? errorCatalogue[code].status;
    this.headers = options.headers ?? {};
  }
}
