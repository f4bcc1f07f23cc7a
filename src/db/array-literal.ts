/**
 * A list of numbers or booleans as a PostgreSQL array literal (`{1,2,3}`), for a parameter cast to an
 * array type (`$1::int8[]`). Given a JavaScript array instead, node-postgres writes the literal one
 * element at a time, each escaped and quoted through regular expressions: queueing a telegram for
 * 1,000 webhook subscriptions (four such lists) made a third of the event loop's allocations in a
 * burst (bench/REPORT.md). Numbers and booleans need no quoting, so one `join` makes it.
 */
export function arrayLiteral(values: readonly (number | boolean)[]): string {
  return `{${values.join(',')}}`;
}
