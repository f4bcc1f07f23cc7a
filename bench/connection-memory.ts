// Heap per idle WebSocket connection of the real-time endpoint (endpoint, hub, heartbeat, connection
// and filter of src/realtime/, tickets from memory), beside a bare `ws` server holding as many idle
// connections of the same client process, in one run. Heap = V8 heap in use after two full GCs,
// before and after connecting, divided by the connections (RSS, which bench/fanout.ts reports,
// also counts garbage not yet collected and heap pages kept from earlier peaks).
// Usage: node --expose-gc --import tsx bench/connection-memory.ts [connections]
//   (bench/fanout.sh raises the open-file limit the same way: ulimit -n "$(ulimit -Hn)")
import { fork } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { WebSocketServer } from 'ws';
import { startEndpoint } from '../test/support/realtime.ts';
import { emitResult } from './result.ts';

const connections = Number(process.argv[2] ?? 5000);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');
const CLIENTS = fileURLToPath(new URL('./fanout-clients.ts', import.meta.url));

function heapUsed(): number {
  gc!();
  gc!();
  return process.memoryUsage().heapUsed;
}

const clients = fork(CLIENTS, [], { execArgv: ['--import', 'tsx'] });
const connected = (urls: string[], bare: boolean) =>
  new Promise<void>((resolve) => {
    clients.once('message', () => resolve());
    clients.send({ type: 'connect', urls, bare });
  });

/** Heap growth per connection while `urls` are connected to a server of this process. */
async function perConnection(urls: string[], bare: boolean): Promise<number> {
  const before = heapUsed();
  await connected(urls, bare);
  await new Promise((r) => setTimeout(r, 1000));
  return (heapUsed() - before) / urls.length;
}

// The real-time endpoint: every session with the filter of bench/fanout.ts.
const endpoint = await startEndpoint();
const filter = {
  classifications: ['eew.forecast', 'eew.warning', 'telegram.earthquake'],
  types: null,
  test: 'no' as const,
  formatMode: 'raw' as const,
};
const tickets = Array.from({ length: connections }, (_, i) => {
  endpoint.gate.tickets.set(`t${i}`, { socketId: i + 1, filter, appName: 'bench' });
  return endpoint.url(`t${i}`);
});
const namazu = await perConnection(tickets, false);
if (endpoint.hub.size !== connections) throw new Error(`only ${endpoint.hub.size} connections opened`);

const bare = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
await new Promise((r) => bare.once('listening', r));
const bareUrl = `ws://127.0.0.1:${(bare.address() as AddressInfo).port}/`;
const reference = await perConnection(Array<string>(connections).fill(bareUrl), true);

const kib = (bytes: number) => (bytes / 1024).toFixed(2);
console.log(`${connections} idle connections, heap after GC per connection:`);
console.log(`  namazu endpoint: ${kib(namazu)} KiB   bare ws: ${kib(reference)} KiB   (target ≤ 8 KiB)`);
emitResult('connection-memory', {
  connections,
  namazuHeapKiB: namazu / 1024,
  bareHeapKiB: reference / 1024,
});
clients.send({ type: 'quit' });
await new Promise((r) => clients.on('exit', r));
await endpoint.stop();
bare.close();
process.exit(0);
