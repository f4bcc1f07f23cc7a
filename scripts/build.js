// Bundles the service into dist/ with esbuild: one ES module per entry plus shared chunks, with
// node_modules left external. Starting from the bundle skips TypeScript compilation and the
// loader's per-module work, which dominates start-up time. Migrations are copied beside it.
import { build } from 'esbuild';
import { cpSync, rmSync } from 'node:fs';

// `node scripts/build.js [outdir]`: dist/ unless told otherwise (the bundle test builds elsewhere).
const outdir = process.argv[2] ?? 'dist';
rmSync(outdir, { recursive: true, force: true });
await build({
  // The workers are entries of their own: the prepare code, run as a worker thread (bulk ingest) or a
  // child process (large live telegrams) by src/telegrams/prepare-runners.ts, and the embedded
  // database's thread (src/db/pglite.ts).
  entryPoints: {
    namazu: 'src/cli/main.ts',
    'prepare-worker': 'src/telegrams/prepare-worker.ts',
    'pglite-worker': 'src/db/pglite-worker.js',
  },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  sourcemap: true,
  logLevel: 'warning',
});
cpSync('src/db/migrations', `${outdir}/migrations`, { recursive: true });
// Data shipped with the release, which its modules read beside the bundle: the station lists
// (src/parameter/builtin.ts) and the sites of earthquake scenarios (src/sources/scenario/sites.ts).
cpSync('src/parameter/data', `${outdir}/data`, { recursive: true });
cpSync('src/sources/scenario/data', `${outdir}/data`, { recursive: true });
