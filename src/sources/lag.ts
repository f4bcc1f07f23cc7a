import type { SourceDeps } from './deps.ts';

/**
 * The two clocks of a source's lag (docs/operations.md "Monitoring"): when it last heard from its
 * origin (a successful poll, a socket message), and when it last brought a telegram that was stored.
 */
export function heardFrom(deps: Pick<SourceDeps, 'clock' | 'metrics'>, source: string): void {
  deps.metrics.sourceLastContact.set({ source }, deps.clock.now() / 1000);
}

export function broughtTelegram(deps: Pick<SourceDeps, 'clock' | 'metrics'>, source: string): void {
  deps.metrics.sourceLastTelegram.set({ source }, deps.clock.now() / 1000);
}
