// Bundles the service into dist/ with esbuild: one ES module per entry plus shared chunks, with
// node_modules left external. Starting from the bundle skips TypeScript compilation and the
// loader's per-module work, which dominates start-up time. Migrations are copied beside it.
import { build } from 'esbuild';
import { cpSync, rmSync } from 'node:fs';

rmSync('dist', { recursive: true, force: true });
await build({
  entryPoints: { namazu: 'src/cli/main.ts' },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  sourcemap: true,
  logLevel: 'warning',
});
cpSync('src/db/migrations', 'dist/migrations', { recursive: true });
