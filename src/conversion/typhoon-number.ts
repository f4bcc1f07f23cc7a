/**
 * A typhoon or tropical-cyclone number as the JSON schemas write it, with a four-digit year: JMA
 * writes the year with two digits (`1718`, `TC1725`), the century is the report's (`2017-…` → `20`).
 * Anything not of that form is returned unchanged.
 */
export function withFullYear(number: string, reportDateTime: string): string {
  const century = /^\d{4}-/u.test(reportDateTime) ? reportDateTime.slice(0, 2) : '20';
  return number.replace(
    /^(TC)?(\d{4})$/u,
    (_, prefix: string | undefined, digits: string) => `${prefix ?? ''}${century}${digits}`,
  );
}
