/**
 * The catch-ups' budget per turn of the event loop (src/realtime/turn-budget.ts): what exceeds it
 * waits for a later turn, with the I/O and timers of the loop run between, and one message larger
 * than the budget still goes, alone.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TurnBudget } from '../../src/realtime/turn-budget.ts';

/** The loop's turns, counted by a chain of immediates started now. */
function turnCounter(): { readonly turn: number; stop(): void } {
  let turn = 0;
  let stopped = false;
  const tick = () => {
    if (stopped) return;
    turn++;
    setImmediate(tick);
  };
  setImmediate(tick);
  return {
    get turn() {
      return turn;
    },
    stop: () => void (stopped = true),
  };
}

test('takers over the budget go in later turns, a few each turn, in the order they asked', async () => {
  const budget = new TurnBudget(1000);
  const turns = turnCounter();
  const went: { who: number; turn: number }[] = [];
  await Promise.all(
    Array.from({ length: 10 }, async (_, who) => {
      await budget.take(400);
      went.push({ who, turn: turns.turn });
    }),
  );
  turns.stop();
  assert.deepEqual(
    went.map((w) => w.who),
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  );
  // Two of 400 fit in 1,000: five turns, two a turn.
  const perTurn = new Map<number, number>();
  for (const w of went) perTurn.set(w.turn, (perTurn.get(w.turn) ?? 0) + 1);
  assert.deepEqual([...perTurn.values()], [2, 2, 2, 2, 2]);
});

test('a timer due meanwhile runs between the turns of a long queue of takers', async () => {
  const budget = new TurnBudget(1000);
  let timerFired = false;
  let takenAfterTimer = 0;
  setTimeout(() => (timerFired = true), 0);
  await Promise.all(
    Array.from({ length: 200 }, async () => {
      await budget.take(600);
      if (timerFired) takenAfterTimer++;
    }),
  );
  // 200 turns of one taker each: the timer fires after the first few, long before the last.
  assert.ok(takenAfterTimer > 150, `${takenAfterTimer} of 200 after the timer`);
});

test('a message larger than the budget goes alone in its turn', async () => {
  const budget = new TurnBudget(1000);
  const turns = turnCounter();
  const went: { who: string; turn: number }[] = [];
  await Promise.all(
    [
      ['small', 100],
      ['large', 5000],
      ['after', 100],
    ].map(async ([who, bytes]) => {
      await budget.take(bytes as number);
      went.push({ who: who as string, turn: turns.turn });
    }),
  );
  turns.stop();
  assert.deepEqual(
    went.map((w) => w.who),
    ['small', 'large', 'after'],
  );
  assert.ok(went[0]!.turn < went[1]!.turn && went[1]!.turn < went[2]!.turn, JSON.stringify(went));
});
