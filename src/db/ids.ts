// Ids for rows inserted several at once. A multi-row INSERT ... RETURNING
// promises no order of the rows it returns, so a use case that writes many
// related rows (donations, then their journal entries) takes their ids first
// and inserts them explicitly. On SQLite it needs the write transaction, the
// only writer; on PostgreSQL the ids come from the table's own sequence, as a
// default id would, on any connection.
import { dialectOf } from './dialect.ts';
import { sql, type Kysely } from 'kysely';
import { assert } from '../shared/assert.ts';
import { prepared } from './prepared.ts';

export type IdTable = 'donations' | 'journal_entries';

export async function reserveIds(trx: Kysely<any>, table: IdTable, n: number): Promise<number[]> {
  const { engine } = dialectOf(trx);
  if (n === 0) return [];
  takenElsewhere[table] += 1;
  if (engine === 'postgres') return (await nextIds(trx, [table], n))[0] ?? [];
  // AUTOINCREMENT: above every id ever used (sqlite_sequence), not only the largest still there.
  const { rows } = await sql<{ last: number }>`select max(
      coalesce((select seq from sqlite_sequence where name = ${table}), 0),
      coalesce((select max(id) from ${sql.table(table)}), 0)) as last`.execute(trx);
  const last = Number(rows[0]?.last ?? 0);
  return Array.from({ length: n }, (_, i) => last + 1 + i);
}

/** Per list of tables, the statement that takes `n` ids of each: prepared, so parsed and planned once per connection. */
const idsQueries = new Map<string, (db: Kysely<any>, values: { n: number }) => Promise<Array<Record<string, number>>>>();

function idsQuery(tables: readonly IdTable[]) {
  const key = tables.join(',');
  let query = idsQueries.get(key);
  if (query === undefined) {
    query = prepared<any, Record<string, number>, { n: number }>((db, p) => {
      // Each table's sequence looked up once per statement (a materialized CTE), not once
      // per id: pg_get_serial_sequence reads the catalog, and took 5x nextval's own time.
      const sequences = tables.map((t, i) => sql`pg_get_serial_sequence(${t}, 'id')::regclass as ${sql.ref(`s${i}`)}`);
      const columns = tables.map((_, i) => sql`nextval(${sql.ref(`s.s${i}`)}) as ${sql.ref(`id${i}`)}`);
      const statement = sql<Record<string, number>>`with s as materialized (select ${sql.join(sequences)})
        select ${sql.join(columns)} from s cross join generate_series(1, ${p('n')}::int)`;
      return { compile: () => statement.compile(db) };
    });
    idsQueries.set(key, query);
  }
  return query;
}

/**
 * How many times this process took ids of each table other than from a stock: a stock whose
 * tables' count moved since it took its ids hands none of them out, since they are older than
 * the ids taken meanwhile (rows made later would get smaller ids).
 */
const takenElsewhere: Record<IdTable, number> = { donations: 0, journal_entries: 0 };
const takenElsewhereOf = (tables: readonly IdTable[]) => tables.reduce((n, t) => n + takenElsewhere[t], 0);

/** PostgreSQL: `n` ids of each table in one round trip (each list ascending). */
export async function reserveIdsOfEach(db: Kysely<any>, tables: readonly IdTable[], n: number): Promise<number[][]> {
  for (const t of tables) takenElsewhere[t] += 1;
  return nextIds(db, tables, n);
}

/** `n` ids of each table, each list ascending, without counting the take (a stock's own). */
async function nextIds(db: Kysely<any>, tables: readonly IdTable[], n: number): Promise<number[][]> {
  if (n === 0) return tables.map(() => []);
  const rows = await idsQuery(tables)(db, { n });
  assert(rows.length === n, 'one id per row asked for');
  return tables.map((_, i) => rows.map((r) => Number(r[`id${i}`])).sort((a, b) => a - b));
}

/** How long ids taken ahead stay usable: ids order a node's rows only to within this. */
export const STOCK_MAX_AGE_MS = 250;

/**
 * PostgreSQL: ids of several tables taken ahead, for a use case that should
 * not wait a round trip for them (donation rounds). `take(n)` answers from
 * the stock when it holds `n` ids of each table taken less than
 * STOCK_MAX_AGE_MS ago, and tops the stock up in the background when it runs
 * low; else it drops the stock and takes `n` and a new stock in one
 * statement. Ids come out in the order the sequence gave them, and after
 * every id this process took of the same tables elsewhere (reserveIds,
 * reserveIdsOfEach): such a take drops the stock and any top-up under way, as
 * `discard()` does, so that on one node a row made later never gets a smaller
 * id (waiting donations are promoted oldest first, lists page by id). Unused
 * ids are gaps, as a sequence's own cache leaves.
 */
export class IdStock {
  readonly #db: Kysely<any>;
  readonly #tables: readonly IdTable[];
  /** Per table, ascending, taken at `#at` (monotonic ms) or later. */
  #ids: number[][];
  #at = 0;
  /** Raised by discard(): a top-up begun before it is dropped when it arrives. */
  #generation = 0;
  /** takenElsewhereOf(tables) when the stock's ids were taken: once it moves, they are too old. */
  #elsewhere = 0;
  #refilling = false;
  /** Takes answered from the stock, and by a statement of their own. */
  readonly stats = { stocked: 0, reserved: 0 };

  /** Monotonic milliseconds: the process's clock, or a test's. */
  readonly #now: () => number;
  /** The top-up under way, if any (a test waits for it to arrive). */
  #topUp: Promise<void> = Promise.resolve();

  constructor(db: Kysely<any>, tables: readonly IdTable[], now: () => number = () => performance.now()) {
    this.#db = db;
    this.#tables = tables;
    this.#ids = tables.map(() => []);
    this.#now = now;
  }

  /** Resolves once the top-up under way, if any, has arrived (and been kept or dropped). */
  toppedUp(): Promise<void> {
    return this.#topUp;
  }

  /** `n` ids of each table (each list ascending). */
  async take(n: number): Promise<number[][]> {
    const held = this.#held();
    // Kept at about four takes of this size, topped up when below two.
    const target = Math.min(Math.max(4 * n, 32), 800);
    if (held >= n) {
      this.stats.stocked += 1;
      const taken = this.#ids.map((ids) => ids.splice(0, n));
      if (held - n < 2 * n) this.#refill(target);
      return taken;
    }
    this.stats.reserved += 1;
    this.discard();
    const generation = this.#generation;
    const elsewhere = takenElsewhereOf(this.#tables);
    const at = this.#now();
    const ids = await nextIds(this.#db, this.#tables, n + target);
    if (generation === this.#generation && elsewhere === takenElsewhereOf(this.#tables))
      this.#keep(
        ids.map((list) => list.slice(n)),
        at,
        elsewhere,
      );
    return ids.map((list) => list.slice(0, n));
  }

  /** Drops the stock and the top-ups under way (before the caller takes ids of its own). */
  discard(): void {
    this.#generation += 1;
    this.#ids = this.#tables.map(() => []);
  }

  /**
   * How many ids of each table the stock holds that are still fresh: none once it is older than
   * STOCK_MAX_AGE_MS, or once ids of its tables were taken elsewhere in this process.
   */
  #held(): number {
    if (this.#now() - this.#at > STOCK_MAX_AGE_MS || this.#elsewhere !== takenElsewhereOf(this.#tables)) return 0;
    return this.#ids[0]?.length ?? 0;
  }

  #keep(ids: number[][], at: number, elsewhere: number): void {
    // A stock still fresh keeps its older ids first; a stale or empty one is replaced.
    const kept = this.#held() > 0;
    this.#ids = ids.map((list, i) => (kept ? [...(this.#ids[i] ?? []), ...list] : list));
    if (!kept) {
      this.#at = at;
      this.#elsewhere = elsewhere;
    }
  }

  #refill(n: number): void {
    if (this.#refilling) return;
    this.#refilling = true;
    const generation = this.#generation;
    const elsewhere = takenElsewhereOf(this.#tables);
    const at = this.#now();
    // A top-up that fails leaves the stock short: the next take takes its own.
    this.#topUp = nextIds(this.#db, this.#tables, n)
      .then((ids) => {
        if (generation === this.#generation && elsewhere === takenElsewhereOf(this.#tables)) this.#keep(ids, at, elsewhere);
      })
      .catch(() => {})
      .finally(() => {
        this.#refilling = false;
      });
  }
}
