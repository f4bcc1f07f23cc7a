#!/usr/bin/env node
// Starts from the esbuild bundle in dist/ when it is at least as new as its sources (npm start builds
// it when they changed: scripts/bundle-current.js); otherwise runs the TypeScript sources through tsx,
// so a checkout always runs its code.
import { bundleIsCurrent } from '../scripts/bundle-current.js';

if (bundleIsCurrent()) {
  await import('../dist/namazu.js');
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/main.ts');
}
