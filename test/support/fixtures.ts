import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Shared fixture directory (never copied into the repository). */
export const fixturesRoot =
  process.env.NAMAZU_FIXTURES ??
  join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'shared', 'fixtures');

export const jmaXmlRoot = join(fixturesRoot, 'jma-xml');

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

/** The fixture index (jma-xml/README.md): one row per file with its type and delivery class. */
export function fixtureIndex(): FixtureEntry[] {
  const readme = readFileSync(join(jmaXmlRoot, 'README.md'), 'utf8');
  const rows: FixtureEntry[] = [];
  for (const line of readme.split('\n')) {
    const m =
      /^\| (official|real|older) \| `([^`]+)` \| (\w+) \| ([\w.]+) \| ([^|]*) \| ([^|]*) \| ([^|]*) \|/.exec(
        line,
      );
    if (!m) continue;
    const folder = folders[m[1] as keyof typeof folders];
    rows.push({
      path: join(jmaXmlRoot, folder, m[2]!),
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

/** Every XML fixture path on disk. */
export function allXmlFixtures(): string[] {
  return Object.values(folders).flatMap((folder) =>
    readdirSync(join(jmaXmlRoot, folder))
      .filter((f) => f.endsWith('.xml'))
      .map((f) => join(jmaXmlRoot, folder, f)),
  );
}

export const fixture = (folder: keyof typeof folders, file: string) =>
  join(jmaXmlRoot, folders[folder], file);
