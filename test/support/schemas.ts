/**
 * Checks JSON responses against the response schemas the routes declare, as the service publishes
 * them in its OpenAPI document (`/openapi.json`, built from `src/api/schemas.ts`). A documented
 * route's response without a declared schema, and any error, is checked against the envelope
 * (docs/api-contract.md "Envelope").
 */
import assert from 'node:assert/strict';
import { Ajv, type ValidateFunction } from 'ajv';
import { Type } from 'typebox';
import { ErrorResponse } from '../../src/api/schemas.ts';
import type { TestServer } from './server.ts';

const ajv = new Ajv({ strict: false, allErrors: true });

const OkEnvelope = Type.Object({
  responseId: Type.String({ pattern: '^[0-9a-f]{16}$' }),
  responseTime: Type.String(),
  status: Type.Literal('ok'),
});

interface OpenApiDocument {
  paths: Record<
    string,
    Record<string, { responses?: Record<string, { content?: Record<string, { schema?: object }> }> }>
  >;
}

const documents = new WeakMap<object, OpenApiDocument>();
const validators = new Map<string, ValidateFunction>();

function compiled(key: string, schema: object): ValidateFunction {
  let validate = validators.get(key);
  if (!validate) validators.set(key, (validate = ajv.compile(schema)));
  return validate;
}

/**
 * The route of the OpenAPI document that `path` falls under, with its declared response schema for
 * `method` and `status` (null when it declares none); null when the document has no such route.
 */
function documentedRoute(server: TestServer, method: string, path: string, status: number) {
  let doc = documents.get(server.app);
  if (!doc) documents.set(server.app, (doc = server.app.swagger() as unknown as OpenApiDocument));
  const pathname = new URL(path, 'http://x').pathname;
  for (const [template, operations] of Object.entries(doc.paths)) {
    const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
    if (!pattern.test(pathname) || !operations[method.toLowerCase()]) continue;
    const response = operations[method.toLowerCase()]!.responses?.[String(status)];
    const schema = response?.content?.['application/json']?.schema;
    return { key: `${method} ${template} ${status}`, schema: schema ?? null };
  }
  return null;
}

/**
 * Asserts that `body`, the JSON answer of `method path` with `status`, matches the route's declared
 * response schema (or the envelope when the route declares none for that status).
 */
export function assertResponseSchema(
  server: TestServer,
  method: string,
  path: string,
  status: number,
  body: unknown,
): void {
  const route = documentedRoute(server, method, path, status);
  // Outside the data API's documented routes only errors have a fixed shape.
  if (!route && status < 400) return;
  const validate = route?.schema
    ? compiled(route.key, route.schema)
    : status >= 400
      ? compiled('error envelope', ErrorResponse)
      : compiled('ok envelope', OkEnvelope);
  assert.ok(
    validate(body),
    `${method} ${path} → ${status} does not match ${route?.schema ? route.key : 'the envelope'}: ${ajv.errorsText(validate.errors)}`,
  );
}
