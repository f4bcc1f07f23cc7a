// @ts-check
// Shared by both engines (postgres.ts, and pglite-worker.js, which loads no TypeScript).

/**
 * A list of numbers or booleans as a PostgreSQL array literal (`{1,2,3}`), made by one `join`;
 * undefined for any other value (strings need quoting, nulls and nested lists their own syntax).
 * The drivers write a JavaScript array one element at a time, each escaped and quoted through
 * regular expressions: queueing a telegram for 1,000 webhook subscriptions (four such lists) made a
 * third of the event loop's allocations in a burst, and a ping tick's 10,000 session ids took four
 * times as long (bench/array-params.ts). The server reads `{1,2}` as it reads `{"1","2"}`, so a
 * statement's result is the same.
 * @param {unknown} value
 * @returns {string | undefined}
 */
export function numberListLiteral(value) {
  return Array.isArray(value) && value.every(isNumberOrBoolean) ? `{${value.join(',')}}` : undefined;
}

/** @param {unknown} value */
function isNumberOrBoolean(value) {
  return typeof value === 'number' || typeof value === 'boolean';
}
