import type { App } from './surface.ts';

/**
 * When a step of the app's stop runs (docs/architecture.md "Stopping"): `preClose` while the HTTP
 * server still accepts, for what would hold it open (WebSockets, event streams) or bring telegrams
 * in; `onClose` once it has closed and no request runs, for timers and subscriptions.
 */
export type StopPhase = 'preClose' | 'onClose';

/**
 * Adds a step to the app's stop. A failure is logged and the stop goes on: a `preClose` hook that
 * throws would skip the ones after it, and no step may keep the others from running.
 */
export function onStop(app: App, phase: StopPhase, step: () => unknown): void {
  const run = async () => {
    try {
      await step();
    } catch (err) {
      app.log.warn({ err }, 'shutdown step failed');
    }
  };
  if (phase === 'preClose') app.addHook('preClose', run);
  else app.addHook('onClose', run);
}
