/**
 * Parameters with each list of numbers or booleans written as a PostgreSQL array literal
 * (`{1,2,3}`), by one `join`. Given a JavaScript array, node-postgres writes the literal one
 * element at a time, each escaped and quoted through regular expressions: queueing a telegram for
 * 1,000 webhook subscriptions (four such lists) made a third of the event loop's allocations in a
 * burst, and a ping tick's 10,000 session ids took four times as long (bench/array-params.ts).
 * Numbers and booleans need no quoting, and the server reads `{1,2}` as it reads `{"1","2"}`, so
 * the statement's result is the same. Other values, and lists holding anything else (strings, nulls,
 * nested lists), are left to node-postgres.
 */
export function withArrayLiterals(params: readonly unknown[]): unknown[] {
  return params.map((p) => (Array.isArray(p) && p.every(isNumberOrBoolean) ? `{${p.join(',')}}` : p));
}

function isNumberOrBoolean(value: unknown): boolean {
  return typeof value === 'number' || typeof value === 'boolean';
}
