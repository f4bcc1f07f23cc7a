import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { formPostCsp, renderFormPostPage } from '../../../src/console/authorization/form-post-page.ts';
import { contentSecurityPolicy } from '../../../src/console/html.ts';

test('form_post page: escaped fields, and a script allowed by the hash of its exact bytes', () => {
  const state = '"><script>alert(1)</script>';
  const html = renderFormPostPage('https://app.example/cb?a=1&b=2', [
    ['code', 'ACe.x'],
    ['state', state],
  ]);
  assert.ok(!html.includes('<script>alert'));
  assert.ok(html.includes('value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"'));
  assert.ok(html.includes('action="https://app.example/cb?a=1&amp;b=2"'));
  const scripts = [...html.matchAll(/<script>([^<]*)<\/script>/g)];
  assert.equal(scripts.length, 1);
  const hash = `'sha256-${createHash('sha256').update(scripts[0]![1]!).digest('base64')}'`;
  const csp = contentSecurityPolicy(formPostCsp('https://app.example'));
  assert.ok(csp.includes(`script-src ${hash}`));
  assert.ok(csp.includes("form-action 'self' https://app.example"));
  assert.ok(!csp.includes('unsafe-inline'));
});
