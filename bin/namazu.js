#!/usr/bin/env node
// Starts from the esbuild bundle in dist/ when it is at least as new as every source file (npm start
// builds it); otherwise runs the TypeScript sources through tsx, so a checkout always runs its code.
import { readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

function bundleIsCurrent() {
  try {
    return statSync(`${root}dist/namazu.js`).mtimeMs >= newestMtime(`${root}src`);
  } catch {
    return false;
  }
}

if (bundleIsCurrent()) {
  await import('../dist/namazu.js');
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/main.ts');
}
