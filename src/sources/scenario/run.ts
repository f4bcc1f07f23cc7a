import { CodedError } from '../../errors.ts';
import type { Config } from '../../config.ts';
import type { Logger } from '../../log.ts';
import type { IngestDeps } from '../../telegrams/ingest.ts';
import { ingestTimed } from '../timed-ingest.ts';
import { earthquakeScenario, type ScenarioParams, type ScenarioTelegram } from './sequence.ts';

/**
 * A scenario that must not run here: the message says why (docs/sources.md); an HTTP answer is the
 * catalogue's `REAL_SCENARIO_REFUSED`.
 */
export class ScenarioRefused extends CodedError {
  constructor(message: string) {
    super('REAL_SCENARIO_REFUSED', { message });
  }
}

/** Scenario parameters outside what the generator models. */
export const SCENARIO_LIMITS = {
  latitude: [20, 50],
  longitude: [120, 155],
  depthKm: [0, 700],
  magnitude: [3, 9.5],
  speed: [0.01, 1000],
} as const;

/** `--as-real` telegrams would pass for real ones: never beside a live source (NAMAZU_SOURCES). */
export function refuseRealBesideSources(config: Config, asReal: boolean): void {
  if (asReal && config.sources.length > 0)
    throw new ScenarioRefused(
      `--as-real is refused while a real source is enabled (NAMAZU_SOURCES=${config.sources.join(',')})`,
    );
}

export interface ScenarioResult {
  eventId: string;
  originTime: string;
  telegrams: { type: string; id: string; serial: number }[];
  rejected: { type: string; reason: string }[];
}

/**
 * When the last scenario of this process started: the next starts at least a second later, so that
 * its origin time, hence its EventID, differs (docs/sources.md "Earthquake scenarios").
 */
let lastStartMs = 0;

/** A scenario under way: what it will issue, and its end. */
export interface StartedScenario {
  eventId: string;
  originTime: string;
  telegrams: { type: string; offsetMs: number }[];
  done: Promise<ScenarioResult>;
}

/** What became of one telegram of a scenario, told as soon as it is stored (or refused). */
export type ScenarioProgress =
  { type: string; id: string; serial: number } | { type: string; reason: string };

/**
 * Generates a scenario now and starts ingesting its telegrams at their times divided by `speed`;
 * `signal` stops it between telegrams (`done` then rejects with the abort); `progress` hears of each
 * telegram as it is stored.
 */
export function startScenario(
  deps: Omit<IngestDeps, 'source'>,
  params: ScenarioParams,
  speed: number,
  signal?: AbortSignal,
  progress?: (told: ScenarioProgress) => void,
): StartedScenario {
  const now = Date.now();
  lastStartMs = Math.max(now, lastStartMs + 1000);
  const scenario = earthquakeScenario(params, lastStartMs, speed);
  // A scenario started within a second of the previous one is dated, so issued, a little later.
  const delayMs = lastStartMs - now;
  const result: ScenarioResult = {
    eventId: scenario.eventId,
    originTime: scenario.originTime,
    telegrams: [],
    rejected: [],
  };
  const done = ingestTimed<ScenarioTelegram>(
    { ...deps, source: 'scenario' },
    scenario.telegrams.map((t) => ({ offsetMs: delayMs * speed + t.offsetMs, item: t })),
    speed,
    (t) => ({ raw: Buffer.from(t.xml, 'utf8') }),
    (t, outcome) => {
      const told: ScenarioProgress = outcome?.ok
        ? { type: t.type, id: outcome.stored.id, serial: outcome.stored.serial }
        : { type: t.type, reason: outcome?.reason ?? 'not made' };
      if ('id' in told) result.telegrams.push(told);
      else result.rejected.push(told);
      progress?.(told);
    },
    signal,
  ).then(() => result);
  return {
    eventId: scenario.eventId,
    originTime: scenario.originTime,
    telegrams: scenario.telegrams.map(({ type, offsetMs }) => ({
      type,
      offsetMs: delayMs + offsetMs / speed,
    })),
    done,
  };
}

/**
 * Generates a scenario now and ingests its telegrams at their times divided by `speed`, until done
 * or `signal` stops it; `onStart` hears what it will issue, `progress` each telegram as it is stored.
 */
export function runScenario(
  deps: Omit<IngestDeps, 'source'>,
  params: ScenarioParams,
  speed: number,
  signal?: AbortSignal,
  hooks: { onStart?(s: StartedScenario): void; progress?(told: ScenarioProgress): void } = {},
): Promise<ScenarioResult> {
  const started = startScenario(deps, params, speed, signal, hooks.progress);
  hooks.onStart?.(started);
  return started.done;
}

/**
 * The scenarios a server runs in the background (POST /admin/v1/scenarios, the console's form), each
 * logged when it ends. They stop before their next telegram once `signal` (the server's stop) is
 * aborted; the stop then waits for `settled`, so that the telegram being stored is stored whole
 * before the database closes (docs/operations.md "Stopping").
 */
export class BackgroundScenarios {
  private readonly underWay = new Set<Promise<void>>();

  constructor(
    private readonly deps: Omit<IngestDeps, 'source'> & { log: Logger },
    private readonly signal: AbortSignal,
  ) {}

  start(params: ScenarioParams, speed: number): StartedScenario {
    const { log } = this.deps;
    const started = startScenario(this.deps, params, speed, this.signal);
    const ended = started.done.then(
      (result) => log.info({ eventId: result.eventId, rejected: result.rejected }, 'scenario done'),
      (err: unknown) => {
        if (!this.signal.aborted) log.error({ err, eventId: started.eventId }, 'scenario failed');
      },
    );
    this.underWay.add(ended);
    void ended.finally(() => this.underWay.delete(ended));
    return started;
  }

  /** Resolves once every scenario under way has ended. */
  async settled(): Promise<void> {
    await Promise.all(this.underWay);
  }
}
