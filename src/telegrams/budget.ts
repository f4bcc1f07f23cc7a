import { DEFAULT_PREPARE_TIMEOUT_MS } from '../config.ts';

/**
 * The time budget of a telegram's preparation (docs/telegrams.md "Time budget"):
 * NAMAZU_PREPARE_TIMEOUT_MS from the configuration of the process that ingests, or its default where
 * none is given (tools, tests).
 */
export type PrepareBudget = { config?: { prepareTimeoutMs?: number } };

export const prepareBudgetMs = (deps: PrepareBudget): number =>
  deps.config?.prepareTimeoutMs ?? DEFAULT_PREPARE_TIMEOUT_MS;

/** The documented reason recorded for a telegram stored without its conversion over the budget. */
export const overBudgetReason = (budgetMs: number): string =>
  `not converted: preparing the telegram took longer than ${budgetMs} ms`;
