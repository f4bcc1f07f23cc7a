// Bundles test files with esbuild for scripts/run-tests.js: one ES module per test file plus shared
// chunks, node_modules left external, as scripts/build.js bundles the service. Through tsx's
// loader each test process would compile and resolve the sources module by module again, which
// costs seconds of CPU per file. Behaviour stays that of the sources: every `import.meta.url` is
// replaced by the URL of the source file that names it, so paths found from it (fixtures,
// migrations, station data, the prepare worker, which then starts through tsx) are those of the
// checkout, and keepNames keeps class and function names as written.
import { build } from 'esbuild';
import { readFileSync, rmSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const sourceUrls = {
  name: 'source-urls',
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, (args) => {
      const url = JSON.stringify(pathToFileURL(args.path).href);
      const contents = readFileSync(args.path, 'utf8').replaceAll('import.meta.url', url);
      return { contents, loader: 'ts' };
    });
  },
};

/** Bundles `files` (paths under the checkout) into `outdir`, mirroring their paths; returns the bundles' paths. */
export async function buildTests(files, outdir) {
  rmSync(outdir, { recursive: true, force: true });
  await build({
    entryPoints: files,
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
    plugins: [sourceUrls],
  });
  return files.map((f) => `${outdir}/${f.replace(/\.ts$/, '.js')}`);
}
