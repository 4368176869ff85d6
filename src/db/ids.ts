// Ids for rows inserted several at once. A multi-row INSERT ... RETURNING
// promises no order of the rows it returns, so a use case that writes many
// related rows (donations, then their journal entries) takes their ids first
// and inserts them explicitly. On SQLite it needs the write transaction, the
// only writer; on PostgreSQL the ids come from the table's own sequence, as a
// default id would, on any connection.
import { sql, type Kysely } from 'kysely';
import type { Engine } from './database.ts';
import { assert } from '../shared/assert.ts';
import { prepared } from './prepared.ts';

export type IdTable = 'donations' | 'journal_entries';

export async function reserveIds(trx: Kysely<any>, engine: Engine, table: IdTable, n: number): Promise<number[]> {
  if (n === 0) return [];
  if (engine === 'postgres') return (await reserveIdsOfEach(trx, [table], n))[0] ?? [];
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

/** PostgreSQL: `n` ids of each table in one round trip (each list ascending). */
export async function reserveIdsOfEach(db: Kysely<any>, tables: readonly IdTable[], n: number): Promise<number[][]> {
  if (n === 0) return tables.map(() => []);
  const rows = await idsQuery(tables)(db, { n });
  assert(rows.length === n, 'one id per row asked for');
  return tables.map((_, i) => rows.map((r) => Number(r[`id${i}`])).sort((a, b) => a - b));
}
