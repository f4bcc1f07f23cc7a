import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { openBus } from '../bus/open.ts';
import { ingestInOrder } from '../telegrams/ingest.ts';
import { MAX_TELEGRAM_BYTES } from '../telegrams/prepare.ts';
import { databaseFlags, parseFlags, printJson, UsageError } from './args.ts';
import { withDatabase } from './database.ts';

const USAGE = 'usage: namazu ingest [--type T] [--author A] PATH…  (files, or directories of *.xml)';

/** Telegram files under the paths: named files as given, directories' *.xml files recursively. */
function collect(path: string, named: boolean): string[] {
  const st = statSync(path);
  if (st.isDirectory()) {
    return readdirSync(path)
      .sort()
      .flatMap((name) => collect(join(path, name), false));
  }
  return named || path.endsWith('.xml') ? [path] : [];
}

/**
 * namazu ingest PATH… — stores telegram files through the ingest pipeline and prints
 * {"ingested","duplicates","rejected":[{path,reason}]}. Running servers hear of new telegrams over
 * a shared bus (PostgreSQL or Redis).
 */
export async function ingestCommand(argv: string[]): Promise<void> {
  const { values, positionals } = parseFlags(
    argv,
    { ...databaseFlags, type: { type: 'string' }, author: { type: 'string' } },
    true,
  );
  if (positionals.length === 0) throw new UsageError(USAGE);
  const files: string[] = [];
  for (const p of positionals) {
    try {
      files.push(...collect(p, true));
    } catch {
      throw new UsageError(`cannot read ${p}`);
    }
  }
  const result = await withDatabase(values, async ({ config, db }) => {
    const bus = await openBus(config);
    const out = {
      ingested: 0,
      duplicates: 0,
      rejected: [] as { path: string; reason: string }[],
      conversionFailures: [] as { path: string; id: string; schema: string; reason: string }[],
    };
    try {
      // Files over the limit are reported without being read; the others are read one at a time.
      const readable = files.filter((path) => {
        if (statSync(path).size <= MAX_TELEGRAM_BYTES) return true;
        out.rejected.push({ path, reason: `telegram larger than ${MAX_TELEGRAM_BYTES} bytes` });
        return false;
      });
      function* items() {
        for (const path of readable) {
          yield {
            raw: readFileSync(path),
            hints: {
              fileName: basename(path),
              type: values.type,
              author: values.author,
              receivedTime: Date.now(),
            },
          };
        }
      }
      await ingestInOrder({ db, bus }, items(), (outcome, i) => {
        if (!outcome.ok) out.rejected.push({ path: readable[i]!, reason: outcome.reason });
        else if (outcome.stored.duplicate) out.duplicates++;
        else out.ingested++;
        if (outcome.ok && outcome.conversionFailure) {
          const { schema, reason } = outcome.conversionFailure;
          out.conversionFailures.push({
            path: readable[i]!,
            id: outcome.stored.id,
            schema: schema.type,
            reason,
          });
        }
      });
    } finally {
      await bus.close();
    }
    return out;
  });
  printJson(result);
}
