import { refuseRealBesideSources, runScenario, SCENARIO_LIMITS } from '../sources/scenario/run.ts';
import { databaseFlags, parseFlags, printJson, required, UsageError } from './args.ts';
import { usageError } from './usage.ts';
import { noteUnserved, type CommandIo } from './database.ts';

function number(
  values: Record<string, unknown>,
  name: keyof typeof SCENARIO_LIMITS,
  flag: string,
  fallback?: number,
): number {
  const raw = values[flag];
  if (raw === undefined && fallback !== undefined) return fallback;
  const n = Number(required(values, flag));
  const [min, max] = SCENARIO_LIMITS[name];
  if (!Number.isFinite(n) || n < min || n > max)
    throw new UsageError(`--${flag} must be a number from ${min} to ${max}`);
  return n;
}

/**
 * namazu scenario earthquake … — generates an earthquake's telegrams (EEW, intensity flash,
 * hypocentre, detailed report, tsunami forecast when due) and ingests them in real time divided by
 * --speed; 訓練 unless --as-real. Prints a line per telegram on stderr as it is stored, then
 * {"eventId","originTime","telegrams","rejected"} (the origin time as the reports carry it). Run in a
 * server, it stops when the command is interrupted or the server stops (io.signal).
 */
export async function scenarioCommand(argv: string[], io: CommandIo): Promise<void> {
  const { values, positionals } = parseFlags(
    argv,
    {
      ...databaseFlags,
      lat: { type: 'string' },
      lon: { type: 'string' },
      depth: { type: 'string' },
      magnitude: { type: 'string' },
      speed: { type: 'string' },
      'as-real': { type: 'boolean' },
    },
    true,
  );
  if (positionals.length !== 1 || positionals[0] !== 'earthquake') throw usageError('scenario');
  const params = {
    latitude: number(values, 'latitude', 'lat'),
    longitude: number(values, 'longitude', 'lon'),
    depthKm: number(values, 'depthKm', 'depth'),
    magnitude: number(values, 'magnitude', 'magnitude'),
    asReal: values['as-real'] === true,
  };
  const speed = number(values, 'speed', 'speed', 1);
  const result = await io.withDatabase(values, async (session) => {
    const { config, db, bus, metrics, log } = session;
    refuseRealBesideSources(config, params.asReal);
    noteUnserved('scenario', session, io);
    const begun = Date.now();
    const say = (line: string) => io.stderr(`namazu scenario: ${line}\n`);
    let total = 0;
    let told = 0;
    return runScenario({ db, bus: await bus(), config, metrics, log }, params, speed, io.signal, {
      onStart: (s) => {
        total = s.telegrams.length;
        const lastS = Math.round((s.telegrams.at(-1)?.offsetMs ?? 0) / 1000);
        say(`event ${s.eventId}, origin ${s.originTime}: ${total} telegrams over ${lastS} s`);
      },
      progress: (t) => {
        const at = ((Date.now() - begun) / 1000).toFixed(1);
        say(
          `${++told}/${total} +${at} s ${t.type} ${'id' in t ? `sent as ${t.id}` : `rejected: ${t.reason}`}`,
        );
      },
    });
  });
  printJson(io, result);
}
