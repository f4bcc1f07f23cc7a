import type { Queryable } from '../db/types.ts';
import { AccountError } from './accounts.ts';
import { planByClassification, planById, plans, type Plan } from './plans.ts';

export interface Contract {
  id: number;
  plan: Plan;
  start: Date;
}

/** One entry of /v2/contract: every plan, contracted or not. */
export interface ContractListItem {
  id: number | null;
  plan: Plan;
  start: Date | null;
  isValid: boolean;
}

function requirePlan(classification: string): Plan {
  const plan = planByClassification(classification);
  if (!plan)
    throw new AccountError(
      `unknown plan ${classification}; known: ${plans.map((p) => p.classification).join(', ')}`,
    );
  return plan;
}

/** Starts a contract; a running contract for the same plan is returned unchanged. */
export async function addContract(
  q: Queryable,
  accountId: number,
  classification: string,
): Promise<Contract> {
  const plan = requirePlan(classification);
  await q.query(
    `INSERT INTO contracts (account_id, plan_id) VALUES ($1, $2)
     ON CONFLICT (account_id, plan_id) WHERE end_at IS NULL DO NOTHING`,
    [accountId, plan.id],
  );
  const rows = await q.query<{ id: number; start_at: Date }>(
    'SELECT id, start_at FROM contracts WHERE account_id = $1 AND plan_id = $2 AND end_at IS NULL',
    [accountId, plan.id],
  );
  return { id: rows[0]!.id, plan, start: rows[0]!.start_at };
}

/** Ends the running contract for the plan. Returns whether one was running. */
export async function removeContract(
  q: Queryable,
  accountId: number,
  classification: string,
): Promise<boolean> {
  const plan = requirePlan(classification);
  const rows = await q.query(
    'UPDATE contracts SET end_at = now() WHERE account_id = $1 AND plan_id = $2 AND end_at IS NULL RETURNING id',
    [accountId, plan.id],
  );
  return rows.length > 0;
}

export async function runningContracts(q: Queryable, accountId: number): Promise<Contract[]> {
  const rows = await q.query<{ id: number; plan_id: number; start_at: Date }>(
    'SELECT id, plan_id, start_at FROM contracts WHERE account_id = $1 AND end_at IS NULL ORDER BY plan_id',
    [accountId],
  );
  return rows.flatMap((r) => {
    const plan = planById(r.plan_id);
    return plan ? [{ id: r.id, plan, start: r.start_at }] : [];
  });
}

/** Every plan, with the account's running contract where there is one. */
export async function contractList(q: Queryable, accountId: number): Promise<ContractListItem[]> {
  const running = new Map((await runningContracts(q, accountId)).map((c) => [c.plan.id, c]));
  return plans.map((plan) => {
    const c = running.get(plan.id);
    return c
      ? { id: c.id, plan, start: c.start, isValid: true }
      : { id: null, plan, start: null, isValid: false };
  });
}

/** Classifications the account's running contracts deliver. */
export async function contractedClassifications(q: Queryable, accountId: number): Promise<Set<string>> {
  return new Set(
    (await runningContracts(q, accountId)).filter((c) => c.plan.delivers).map((c) => c.plan.classification),
  );
}

/**
 * Simultaneous WebSocket connections allowed: the operator's limit of the account when one is set
 * (connection-limit.ts `setConnectionLimit`), else the sum of connectionCounts of running contracts.
 */
export async function connectionLimit(q: Queryable, accountId: number): Promise<number> {
  return (await connectionTerms(q, accountId)).limit;
}

/** What a socket start or a ticket redemption is decided against. */
export interface ConnectionTerms {
  /** As connectionLimit. */
  limit: number;
  /** As contractedClassifications. */
  contracted: Set<string>;
}

/** The columns of an account's terms, of `accounts a`: a statement that reads them passes the row to `termsOf`. */
export const TERMS_COLUMNS = `a.connection_limit, ARRAY(
  SELECT plan_id FROM contracts WHERE account_id = a.id AND end_at IS NULL) AS plan_ids`;

export interface TermsRow {
  connection_limit: number | null;
  plan_ids: number[];
}

/** The terms of the account whose TERMS_COLUMNS are `row` (none: no such account, nothing allowed). */
export function termsOf(row: TermsRow | undefined): ConnectionTerms {
  if (!row) return { limit: 0, contracted: new Set() };
  const running = row.plan_ids.flatMap((id) => planById(id) ?? []);
  return {
    limit: row.connection_limit ?? running.reduce((n, plan) => n + plan.connectionCounts, 0),
    contracted: new Set(running.filter((plan) => plan.delivers).map((plan) => plan.classification)),
  };
}

/** The connection limit and the contracted classifications, in one statement. */
export async function connectionTerms(q: Queryable, accountId: number): Promise<ConnectionTerms> {
  const rows = await q.query<TermsRow>(`SELECT ${TERMS_COLUMNS} FROM accounts a WHERE a.id = $1`, [
    accountId,
  ]);
  return termsOf(rows[0]);
}
