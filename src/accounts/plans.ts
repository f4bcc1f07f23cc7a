/**
 * Plans (docs/api-contract.md "Contracts and plans"): one per classification, each adding one
 * WebSocket connection, plus two plans that only add connections. Prices are configuration data
 * shown by /v2/contract (yen).
 */
export interface Plan {
  id: number;
  name: string;
  /** The classification the plan delivers; for connection-only plans, the plan's own name. */
  classification: string;
  connectionCounts: number;
  price: { day: number; month: number };
  /** False for plans that only add connections. */
  delivers: boolean;
}

const plan = (id: number, classification: string, name: string, day: number, month: number): Plan => ({
  id,
  name,
  classification,
  connectionCounts: 1,
  price: { day, month },
  delivers: true,
});

export const plans: readonly Plan[] = [
  plan(1, 'eew.forecast', '緊急地震（予報）', 30, 900),
  plan(2, 'eew.warning', '緊急地震（警報）', 10, 300),
  plan(3, 'eew.realtime', '緊急地震（リアルタイム）', 30, 900),
  plan(4, 'telegram.earthquake', '地震・津波関連', 10, 300),
  plan(5, 'telegram.volcano', '火山関連', 5, 150),
  plan(6, 'telegram.weather', '気象警報・注意報関連', 10, 300),
  plan(7, 'telegram.forecast', '気象予報関連', 5, 150),
  plan(8, 'telegram.observation', '気象観測関連', 5, 150),
  plan(9, 'telegram.scheduled', '定時関連', 5, 150),
  plan(10, 'telegram.lightning', '雷関連', 5, 150),
  {
    id: 11,
    name: 'WebSocket 同時接続 +2',
    classification: 'websocket.plus2',
    connectionCounts: 2,
    price: { day: 10, month: 300 },
    delivers: false,
  },
  {
    id: 12,
    name: 'WebSocket 同時接続 +5',
    classification: 'websocket.plus5',
    connectionCounts: 5,
    price: { day: 20, month: 600 },
    delivers: false,
  },
];

export function planByClassification(classification: string): Plan | undefined {
  return plans.find((p) => p.classification === classification);
}

export function planById(id: number): Plan | undefined {
  return plans.find((p) => p.id === id);
}
