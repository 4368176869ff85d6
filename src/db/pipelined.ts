// PostgreSQL lookups pipelined on a few shared connections (pg's pipeline
// mode). A lookup is one statement that reads, outside any transaction: the
// epochs every request checks, a page of a list. From a pool, each takes a
// connection of its own, and the server process behind it sleeps between
// statements: every statement then pays a wake-up on each side. Here the
// lookups of all requests share a few connections, each statement written as
// soon as it is asked for, without waiting for the answers before it: the
// server reads the next one while it answers the last. Each statement has its
// own Sync, so it is its own transaction and fails alone, and it sees every
// commit made before it was sent, as on a pooled connection.
import type { Writable } from 'node:stream';
import pg from 'pg';
import type { PostgresPool, PostgresPoolClient } from 'kysely';

/** Statements that would open a transaction on a connection others share. */
const TRANSACTION = /^\s*(begin|start\s+transaction|savepoint)\b/i;

class Shared {
  /** The wrapper Kysely sees: the same object every time, so Kysely keeps one connection object for it. */
  readonly handle: PostgresPoolClient;
  readonly client: pg.Client;
  readonly ready: Promise<void>;
  readonly bornAt = Date.now();
  dead = false;
  #corked = false;
  constructor(client: pg.Client) {
    this.client = client;
    // A lost server must not crash the process: the statements under way fail (503), and the
    // next lookup opens a new connection.
    client.on('error', () => {
      this.dead = true;
    });
    client.on('end', () => {
      this.dead = true;
    });
    this.ready = client.connect().then(
      () => undefined,
      (error: unknown) => {
        this.dead = true;
        throw error;
      },
    );
    const query = (...args: unknown[]) => {
      const [text] = args;
      if (typeof text === 'string' && TRANSACTION.test(text)) {
        return Promise.reject(new Error('a transaction cannot run on a shared pipelined connection; use the pool'));
      }
      this.#gather();
      return (client.query as (...a: unknown[]) => unknown)(...args);
    };
    // (Kysely's type overloads query for cursors too; none is used here.)
    this.handle = { query: query as PostgresPoolClient['query'], release: () => {} };
  }

  /**
   * The statements asked for in this turn of the event loop leave together: the socket is corked
   * at the first and uncorked once the turn's I/O callbacks have run (setImmediate), so the
   * requests that arrived together send their lookups in one write, not one system call each
   * (each statement is four protocol messages; docs/performance-history.md, 2026-12-05).
   */
  #gather(): void {
    if (this.#corked) return;
    const stream = (this.client as unknown as { connection?: { stream?: Writable } }).connection?.stream;
    if (stream === undefined) return;
    this.#corked = true;
    stream.cork();
    setImmediate(() => {
      this.#corked = false;
      stream.uncork();
    });
  }
}

/** A pool for Kysely's PostgresDialect whose every connection is one of a few shared ones. */
export class PipelinedPool implements PostgresPool {
  readonly #make: () => pg.Client;
  readonly #slots: Array<Shared | undefined>;
  readonly #lifetimeMs: number;
  #next = 0;
  #ended = false;

  /** `size` shared connections made by `make` (a client with `pipeline: true`), each replaced after `lifetimeS` (0: never). */
  constructor(make: () => pg.Client, size: number, lifetimeS = 0) {
    this.#make = make;
    this.#slots = Array.from({ length: size }, () => undefined);
    this.#lifetimeMs = lifetimeS * 1000;
  }

  async connect(): Promise<PostgresPoolClient> {
    if (this.#ended) throw new Error('the pipelined connections are closed');
    const i = this.#next;
    this.#next = (i + 1) % this.#slots.length;
    let shared = this.#slots[i];
    if (shared === undefined || shared.dead || (this.#lifetimeMs > 0 && Date.now() - shared.bornAt > this.#lifetimeMs)) {
      const old = shared;
      shared = new Shared(this.#make());
      this.#slots[i] = shared;
      // A replaced connection finishes the statements already sent, then ends.
      if (old !== undefined && !old.dead) void old.client.end().catch(() => {});
    }
    await shared.ready;
    return shared.handle;
  }

  async end(): Promise<void> {
    this.#ended = true;
    const open = this.#slots.filter((s): s is Shared => s !== undefined && !s.dead);
    this.#slots.fill(undefined);
    await Promise.all(open.map((s) => s.client.end().catch(() => {})));
  }
}
