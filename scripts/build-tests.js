// Bundles test files with esbuild for scripts/run-tests.js: one ES module per test file plus shared
// chunks, node_modules left external, as scripts/build.js bundles the service. Through tsx's
// loader each test process would compile and resolve the sources module by module again, which
// costs seconds of CPU per file. Behaviour stays that of the sources: every `import.meta.url` is
// replaced by the URL of the source file that names it, so paths found from it (fixtures,
// migrations, station data) are those of the checkout, and keepNames keeps class and function
// names as written. The worker modules (src/worker-code.ts) are bundled beside the tests too, and
// their callers find them there: started through tsx, each prepare worker cost about half a second
// more CPU, and a test server starts two.
import { build } from 'esbuild';
import { readFileSync, rmSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const WORKERS = [
  'src/telegrams/prepare-worker.ts',
  'src/webhooks/sender-worker.ts',
  'src/conversion/validator-worker.ts',
];

const sourceUrls = (outdir) => ({
  name: 'source-urls',
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, (args) => {
      const url = JSON.stringify(pathToFileURL(args.path).href);
      // Where the caller's bundle would be: its worker's bundle is beside it.
      const bundledUrl = JSON.stringify(
        pathToFileURL(resolve(outdir, relative('.', args.path))).href.replace(/\.ts$/, '.js'),
      );
      const contents = readFileSync(args.path, 'utf8')
        .replaceAll('workerLoadCode(import.meta.url', `workerLoadCode(${bundledUrl}`)
        .replaceAll('import.meta.url', url);
      return { contents, loader: 'ts' };
    });
  },
});

/** Bundles `files` (paths under the checkout) into `outdir`, mirroring their paths; returns the bundles' paths. */
export async function buildTests(files, outdir) {
  rmSync(outdir, { recursive: true, force: true });
  await build({
    entryPoints: [...files, ...WORKERS],
    outbase: '.',
    outdir,
    bundle: true,
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    keepNames: true,
    sourcemap: true,
    // Positions are what stack traces and coverage read; the sources are on disk. Without their
    // text the maps are a third of the size, and every test process parses them as it loads (and
    // writes them into its coverage file as it exits).
    sourcesContent: false,
    logLevel: 'warning',
    plugins: [sourceUrls(outdir)],
  });
  return files.map((f) => `${outdir}/${f.replace(/\.ts$/, '.js')}`);
}
