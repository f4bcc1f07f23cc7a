import { HttpError } from './errors.ts';
import type { App } from './surface.ts';

/** The documented answer to a body that is not JSON (docs/api-contract.md "Errors"). */
export const NOT_JSON_MESSAGE = 'The body of the request is not json.';

/**
 * Parses every body of the scope as JSON whatever its Content-Type (or none), as the production
 * service does for `POST /v2/socket`: browser samples send text/plain. Fastify's own parser reads
 * it, so that a `__proto__` or `constructor.prototype` key is refused as it refuses them elsewhere.
 * A body that is not JSON, or holds those keys, is a 400 with the documented message.
 */
export function acceptJsonWhateverType(scope: App): void {
  const parse = scope.getDefaultJsonParser('error', 'error');
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('*', { parseAs: 'string' }, (req, body, done) =>
    parse(req, body as string, (err, value) =>
      err ? done(new HttpError('INVALID_FIELD', { detail: NOT_JSON_MESSAGE })) : done(null, value),
    ),
  );
}

/**
 * A scope whose requests take no body: whatever one holds (a client's empty JSON body, `{}`) is not
 * read, whatever its Content-Type, up to 1 KiB (413 over it).
 */
export function ignoreBodies(scope: App): void {
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('*', { bodyLimit: 1024 }, (_req, _payload, done) => done(null, undefined));
}
