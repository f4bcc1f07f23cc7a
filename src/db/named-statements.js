// @ts-check
// Shared by both engines (postgres.ts, and pglite-worker.js, which loads no TypeScript): statements
// with parameters run as named prepared statements, planned once per connection instead of on every
// call. Texts come from code, so there are few; past this many, texts run unnamed rather than
// growing every connection.
export const MAX_NAMED_STATEMENTS = 500;
