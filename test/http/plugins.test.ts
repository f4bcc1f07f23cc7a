import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify from 'fastify';
import { authentication } from '../../src/http/authentication.ts';
import { pathErrors } from '../../src/http/path-errors.ts';
import type { AppPlugin } from '../../src/http/surface.ts';
import { tokenEndpoints } from '../../src/oauth/token-routes.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

// A surface names the shared plugins it needs (docs/architecture.md "Assembly"): Fastify refuses
// to start it without them or before them, instead of the surface reading a decorator that is not
// there yet.

let server: TestServer;
before(async () => {
  server = await startTestServer({ listen: false });
});
after(() => server.close());

/** A bare app with the given plugins, registered in order with the test server's context. */
async function start(plugins: AppPlugin[]) {
  const app = Fastify().withTypeProvider<TypeBoxTypeProvider>();
  for (const plugin of plugins) void app.register(plugin, { ctx: server.ctx });
  try {
    await app.ready();
  } finally {
    await app.close();
  }
}

const missingAuthentication = (err: Error & { code?: string }) =>
  err.code === 'FST_ERR_PLUGIN_DEPENDENCY_NOT_REGISTERED' &&
  err.message.includes("'namazu-authentication'") &&
  err.message.includes("'namazu-token-endpoints'");

test('the token endpoints do not start without the authentication plugin, whose DPoP nonces they use', async () => {
  await assert.rejects(start([pathErrors, tokenEndpoints]), missingAuthentication);
});

test('nor before it', async () => {
  await assert.rejects(start([pathErrors, tokenEndpoints, authentication]), missingAuthentication);
});

test('after it, they start', async () => {
  await start([authentication, pathErrors, tokenEndpoints]);
});
