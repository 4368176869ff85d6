// A TCP proxy that can be cut (every connection reset, new ones refused), or
// turned into a black hole (nothing passes and nothing is closed, as when a host
// powers off or a NAT entry is dropped), and restored on the same port: how the
// tests and the operator drill take PostgreSQL or Redis away from a node and
// give it back.
import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';

/** A TCP proxy (to PostgreSQL, Redis...) that can be cut (resetting every connection, refusing new ones) and restored. */
export class CuttableProxy {
  readonly #target: { host: string; port: number };
  readonly #sockets = new Set<Socket>();
  #server: Server | undefined;
  #blackhole = false;
  port = 0;

  constructor(target: { host: string; port: number }) {
    this.#target = target;
  }

  async up(): Promise<void> {
    const server = createServer((client) => {
      if (this.#blackhole) {
        // Accepted, then never answered: bytes go nowhere, nothing is closed.
        this.#sockets.add(client);
        client.on('close', () => this.#sockets.delete(client));
        client.on('error', () => {});
        client.on('data', () => {});
        return;
      }
      const upstream = connect(this.#target.port, this.#target.host);
      for (const s of [client, upstream]) {
        this.#sockets.add(s);
        s.on('close', () => this.#sockets.delete(s));
        s.on('error', () => {});
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    this.#server = server;
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
  }

  /** Nothing passes either way on any connection, old or new, and none is closed: a silent death. */
  blackhole(): void {
    this.#blackhole = true;
    for (const s of this.#sockets) {
      s.unpipe();
      s.removeAllListeners('data');
      s.on('data', () => {});
    }
  }

  /** New connections pass again (the ones that went into the black hole stay dead, as after a real one). */
  restore(): void {
    this.#blackhole = false;
  }

  async cut(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.#server?.close(() => resolve()));
    for (const s of this.#sockets) s.resetAndDestroy();
    await closed;
  }
}
