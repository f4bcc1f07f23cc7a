import { connect, createServer, type Server, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * A TCP relay on loopback in front of `target` (a database or Redis URL): clients given `url()`
 * reach it only through the relay, whose faults they then meet as a network's. `outage(ms)` cuts
 * every connection and refuses new ones for `ms`, as a restart of the server looks to its clients;
 * `silence()` stops forwarding on every connection open so far, both ways, without closing any, as
 * a NAT or firewall that forgot them: their peers see neither an error nor an end. `blackhole()`
 * does that to the connections made from then on too, until `heal()`: a client's new connection is
 * accepted and never answered, as behind a network that drops what passes.
 */
export class TcpRelay {
  private readonly open = new Set<Socket>();
  private server: Server | null = null;
  port = 0;
  /** Connections cut by outages so far. */
  cut = 0;
  private holing = false;

  constructor(
    private readonly target: URL,
    private readonly defaultPort: number,
  ) {}

  async listen(): Promise<void> {
    const server = createServer((client) => {
      if (this.holing) {
        this.open.add(client);
        client.on('close', () => this.open.delete(client));
        client.on('error', () => {});
        client.on('data', () => {});
        return;
      }
      const upstream = connect(Number(this.target.port || this.defaultPort), this.target.hostname);
      for (const [a, b] of [
        [client, upstream],
        [upstream, client],
      ] as const) {
        a.pipe(b);
        a.on('error', () => b.destroy());
        a.on('close', () => b.destroy());
        this.open.add(a);
        a.on('close', () => this.open.delete(a));
      }
    });
    // The same port again after an outage: the clients' URL stays.
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as { port: number }).port;
    this.server = server;
  }

  url(): string {
    const url = new URL(this.target);
    url.host = `127.0.0.1:${this.port}`;
    return url.toString();
  }

  async outage(ms: number): Promise<void> {
    await this.close();
    await sleep(ms);
    await this.listen();
  }

  silence(): void {
    for (const s of this.open) {
      s.unpipe();
      // Read and drop, so that nothing pushes back either.
      s.on('data', () => {});
    }
  }

  blackhole(): void {
    this.holing = true;
    this.silence();
  }

  heal(): void {
    this.holing = false;
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = null;
    this.cut += this.open.size;
    for (const s of this.open) s.destroy();
    if (server) await new Promise((resolve) => server.close(resolve));
  }
}
