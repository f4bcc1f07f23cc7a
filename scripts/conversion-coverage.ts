/**
 * Writes the type coverage table of docs/conversion.md (between the `conversion-coverage` markers)
 * from the registry and the production service's list (src/conversion/coverage.ts). With --check it
 * writes nothing and exits 1 when the document differs (test/conversion/coverage.test.ts checks the
 * same).
 *
 * Run: node --import tsx scripts/conversion-coverage.ts [--check]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { coverageTable, replaceCoverageSection } from '../src/conversion/coverage.ts';

const doc = join(dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'conversion.md');
const current = readFileSync(doc, 'utf8');
const updated = replaceCoverageSection(current, coverageTable());

if (process.argv.includes('--check')) {
  if (updated !== current) {
    console.error(
      'docs/conversion.md: the type coverage table is out of date; run scripts/conversion-coverage.ts',
    );
    process.exit(1);
  }
} else if (updated !== current) {
  writeFileSync(doc, updated);
  console.log('docs/conversion.md: type coverage table written');
} else {
  console.log('docs/conversion.md: type coverage table unchanged');
}
