import { readFileSync, statSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { ingestInOrder } from '../telegrams/ingest.ts';
import { tooLargeReason } from '../telegrams/size.ts';
import { databaseFlags, parseFlags, printJson } from './args.ts';
import { namedFiles } from './files.ts';
import { usageError } from './usage.ts';
import type { CommandIo } from './database.ts';

/**
 * namazu ingest PATH… — stores telegram files through the ingest pipeline and prints
 * {"ingested","duplicates","rejected":[{path,reason}]}. Running servers hear of new telegrams over
 * the bus (a server that holds the embedded data directory runs the ingest itself).
 */
export async function ingestCommand(argv: string[], io: CommandIo): Promise<void> {
  const { values, positionals } = parseFlags(
    argv,
    { ...databaseFlags, type: { type: 'string' }, author: { type: 'string' } },
    true,
  );
  if (positionals.length === 0) throw usageError('ingest');
  const files = namedFiles(io.cwd, positionals, (path) => path.endsWith('.xml'));
  const result = await io.withDatabase(values, async ({ config, db, bus, metrics, log }) => {
    const out = {
      ingested: 0,
      duplicates: 0,
      rejected: [] as { path: string; reason: string }[],
      conversionFailures: [] as { path: string; id: string; schema: string; reason: string }[],
    };
    // Files over the limit are reported without being read; the others are read one at a time.
    const limit = config.maxTelegramBytes;
    const readable = files.filter((path) => {
      if (statSync(resolve(io.cwd, path)).size <= limit) return true;
      out.rejected.push({ path, reason: tooLargeReason(limit) });
      return false;
    });
    function* items() {
      for (const path of readable) {
        yield {
          raw: readFileSync(resolve(io.cwd, path)),
          hints: {
            fileName: basename(path),
            type: values.type,
            author: values.author,
            receivedTime: Date.now(),
          },
        };
      }
    }
    const deps = { db, bus: await bus(), config, metrics, log, source: 'cli' as const };
    await ingestInOrder(deps, items(), (outcome, i) => {
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
    return out;
  });
  printJson(io, result);
}
