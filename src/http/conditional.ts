/**
 * Whether a request's `If-None-Match` matches the current entity tag (RFC 9110 §13.1.2): `*`, or a
 * list of tags any of which equals it by the weak comparison (a `W/` prefix is ignored on both).
 * A match is answered 304.
 */
export function ifNoneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const bare = (tag: string) => tag.trim().replace(/^W\//, '');
  const current = bare(etag);
  return header.split(',').some((tag) => tag.trim() === '*' || bare(tag) === current);
}
