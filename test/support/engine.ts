/**
 * The mark of a test that neither the database engine nor the bus changes, in a file that runs on
 * both (test/engine-dependent.json): where only what depends on the engine runs (the PostgreSQL
 * pass of `npm test -- --also-postgres`, and `--engine-dependent`), it is skipped, having run on
 * PGlite. Given to a `describe`, it skips the whole suite, its hooks too. Rules:
 * test/lint/engine-marks.test.ts.
 */
export const engineFree = {
  skip: process.env.NAMAZU_TEST_ENGINE_DEPENDENT_ONLY ? 'engine-free: runs on PGlite only' : false,
} as const;
