// The error catalogue (src/errors.ts) and its table in docs/api-contract.md "Error codes" agree, as
// fastify tests the codes of lib/errors.js against docs/Reference/Errors.md: every code of the
// catalogue is documented with its status and message, and every documented code exists.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { catalogueMessage, errorCatalogue } from '../../src/errors.ts';

const CONTRACT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'docs', 'api-contract.md');

interface DocumentedCode {
  status: number;
  message: string;
}

/** A table cell's text without its code span (`` `a` `` or ``` `` a `` ```). */
function codeSpan(cell: string): string {
  const match = /^(`+)\s?(.*?)\s?\1$/.exec(cell.trim());
  assert.ok(match, `not a code span: ${cell}`);
  return match[2]!;
}

/** The rows of the table under "### Error codes", by code. */
function documentedCodes(markdown: string): Map<string, DocumentedCode> {
  const section = markdown.split(/^### Error codes$/m)[1];
  assert.ok(section, 'docs/api-contract.md has a section "### Error codes"');
  const body = section.split(/^#{2,3} /m)[0]!;
  const rows = body.split('\n').filter((line) => line.startsWith('| `'));
  const codes = new Map<string, DocumentedCode>();
  for (const row of rows) {
    // Split on the cell bars, not on a `|` inside a code span (none of the messages holds one).
    const [code, status, message] = row.slice(1, -1).split(' | ');
    const name = codeSpan(code!);
    assert.ok(!codes.has(name), `${name} is documented twice`);
    codes.set(name, { status: Number(status!.trim()), message: codeSpan(message!) });
  }
  return codes;
}

test('every code of the error catalogue is documented in docs/api-contract.md with its status and message', () => {
  const documented = documentedCodes(readFileSync(CONTRACT, 'utf8'));
  const missing = Object.keys(errorCatalogue).filter((code) => !documented.has(code));
  assert.deepEqual(missing, [], 'codes of src/errors.ts missing from docs/api-contract.md "Error codes"');
  for (const [code, entry] of Object.entries(errorCatalogue)) {
    assert.deepEqual(documented.get(code), { status: entry.status, message: entry.message }, code);
  }
});

test('every code documented in docs/api-contract.md exists in the error catalogue', () => {
  const documented = documentedCodes(readFileSync(CONTRACT, 'utf8'));
  assert.ok(documented.size > 0, 'the table has rows');
  const unknown = [...documented.keys()].filter((code) => !Object.hasOwn(errorCatalogue, code));
  assert.deepEqual(unknown, [], 'documented codes that src/errors.ts does not have');
});

test('a message names its value as given, `$` patterns included', () => {
  for (const detail of ["a$'b", '$&', '$`', '$$'])
    assert.equal(
      catalogueMessage('UNEXPECTED_QUERY', detail),
      `Unexpected data of search query \`${detail}\`.`,
    );
});
