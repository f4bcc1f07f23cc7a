/**
 * The `namazu` executable that tests run as a process. `npm test` (scripts/run-tests.js) bundles the
 * sources once per run with scripts/build.js, as `npm start` does, and names the bundle in
 * NAMAZU_TEST_BIN: a process then starts in about a second instead of several through tsx. A test
 * file run on its own falls back to bin/namazu.js.
 */
import { fileURLToPath } from 'node:url';

/** bin/namazu.js: the bundle in dist/ when current, else the sources through tsx. */
export const SOURCE_BIN = fileURLToPath(new URL('../../bin/namazu.js', import.meta.url));

/** The executable to spawn with `process.execPath`. */
export const NAMAZU_BIN = process.env.NAMAZU_TEST_BIN || SOURCE_BIN;

/**
 * Node's flags before the executable in every process the tests start, as scripts/run-tests.js starts
 * the test files: WebAssembly compiled by V8's baseline compiler only. Otherwise the embedded
 * database's WebAssembly is compiled a second time, optimised, in the background: about 1 s of CPU per
 * start for code a test process runs for seconds. What the code computes is the same.
 */
export const NODE_FLAGS = ['--liftoff-only'];
