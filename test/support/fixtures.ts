import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Shared fixture directory (never copied into the repository). */
export const fixturesRoot =
  process.env.NAMAZU_FIXTURES ??
  join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'shared', 'fixtures');

export const jmaXmlRoot = join(fixturesRoot, 'jma-xml');
/** The rest of JMA's official sample set, kept apart so that `jma-xml/` as a whole is unchanged. */
export const jmaXmlRestRoot = join(fixturesRoot, 'jma-xml-rest');

const folders = {
  official: 'jma-official-samples',
  real: 'real-operational',
  older: 'jma-official-samples-older',
};

export interface FixtureEntry {
  path: string;
  file: string;
  type: string;
  classification: string;
  controlTitle: string;
  status: string;
  infoType: string;
}

/** One README index (same columns in both folders) as rows; `dirOf` maps its folder column to a directory. */
function readIndex(readmePath: string, dirOf: (folder: string) => string): FixtureEntry[] {
  const readme = readFileSync(readmePath, 'utf8');
  const rows: FixtureEntry[] = [];
  for (const line of readme.split('\n')) {
    const m =
      /^\| (official|real|older|rest) \| `([^`]+)` \| (\w+) \| ([\w.]+) \| ([^|]*) \| ([^|]*) \| ([^|]*) \|/.exec(
        line,
      );
    if (!m) continue;
    rows.push({
      path: join(dirOf(m[1]!), m[2]!),
      file: m[2]!,
      type: m[3]!,
      classification: m[4]!,
      controlTitle: m[5]!.trim(),
      status: m[6]!.trim(),
      infoType: m[7]!.trim(),
    });
  }
  return rows;
}

/** The fixture index (jma-xml/README.md): one row per file with its type and delivery class. */
export function fixtureIndex(): FixtureEntry[] {
  return readIndex(join(jmaXmlRoot, 'README.md'), (folder) =>
    join(jmaXmlRoot, folders[folder as keyof typeof folders]),
  );
}

/** The index of the rest of the official sample set (jma-xml-rest/README.md), in the same form. */
export function restFixtureIndex(): FixtureEntry[] {
  return readIndex(join(jmaXmlRestRoot, 'README.md'), () => jmaXmlRestRoot);
}

/** Every XML fixture path on disk under jma-xml-rest/. */
export function allRestXmlFixtures(): string[] {
  return readdirSync(jmaXmlRestRoot)
    .filter((f) => f.endsWith('.xml'))
    .map((f) => join(jmaXmlRestRoot, f));
}

/** Every XML fixture path on disk under jma-xml/. */
export function allXmlFixtures(): string[] {
  return Object.values(folders).flatMap((folder) =>
    readdirSync(join(jmaXmlRoot, folder))
      .filter((f) => f.endsWith('.xml'))
      .map((f) => join(jmaXmlRoot, folder, f)),
  );
}

export const fixture = (folder: keyof typeof folders | 'rest', file: string) =>
  folder === 'rest' ? join(jmaXmlRestRoot, file) : join(jmaXmlRoot, folders[folder], file);
