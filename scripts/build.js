// Bundles the service into dist/ with esbuild: one ES module per entry plus shared chunks, with
// node_modules left external. Starting from the bundle skips TypeScript compilation and the
// loader's per-module work, which dominates start-up time. Migrations are copied beside it.
//
// `node scripts/build.js [--if-changed] [outdir]`: dist/ unless told otherwise (the bundle test builds
// elsewhere). With --if-changed (`npm start`), nothing is done when the bundle is at least as new as
// its sources (scripts/bundle-current.js): a restart then skips the build, about a second.
import { cpSync, rmSync, utimesSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { bundleIsCurrent } from './bundle-current.js';

const { values, positionals } = parseArgs({
  options: { 'if-changed': { type: 'boolean', default: false } },
  allowPositionals: true,
});
const outdir = positionals[0] ?? 'dist';
if (values['if-changed'] && bundleIsCurrent(outdir)) process.exit(0);

// The bundle is dated from the moment the build started, once it is complete: a source saved while
// it was being built is newer, so the next --if-changed builds again; a build that fails midway
// leaves no bundle, or one dated 1970, never one that looks current.
const startedAt = new Date();

// Packages are loaded from node_modules at run time, except these ES modules of many small files,
// which the loader would resolve and read one by one at every start (typebox: about 340 files,
// 0.3–0.4 s; jose: 60). Only Namazu's own code imports them in the server, so it holds one copy.
const BUNDLED_PACKAGES = /^(typebox|jose)(\/|$)/;
const packagesExternal = {
  name: 'packages-external',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, ({ path, kind }) =>
      kind === 'entry-point' || BUNDLED_PACKAGES.test(path) ? undefined : { path, external: true },
    );
  },
};
rmSync(outdir, { recursive: true, force: true });
const { build } = await import('esbuild');
await build({
  // The workers are entries of their own: the prepare code, run as a worker thread (bulk ingest) or a
  // child process (large live telegrams) by src/telegrams/prepare-runners.ts, the webhook sender's
  // thread (src/webhooks/sender-thread.ts) and the embedded database's thread (src/db/pglite.ts).
  entryPoints: {
    namazu: 'src/cli/main.ts',
    'prepare-worker': 'src/telegrams/prepare-worker.ts',
    'sender-worker': 'src/webhooks/sender-worker.ts',
    'validator-worker': 'src/conversion/validator-worker.ts',
    'pglite-worker': 'src/db/pglite-worker.js',
  },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  plugins: [packagesExternal],
  sourcemap: true,
  // Stack traces read positions only; the maps without the sources' text are a third of the size.
  sourcesContent: false,
  logLevel: 'warning',
});
utimesSync(`${outdir}/namazu.js`, 0, 0);
cpSync('src/db/migrations', `${outdir}/migrations`, { recursive: true });
// Data shipped with the release, which its modules read beside the bundle: the station lists
// (src/parameter/builtin.ts) and the sites of earthquake scenarios (src/sources/scenario/sites.ts).
cpSync('src/parameter/data', `${outdir}/data`, { recursive: true });
cpSync('src/sources/scenario/data', `${outdir}/data`, { recursive: true });
utimesSync(`${outdir}/namazu.js`, startedAt, startedAt);
