// Multi-row INSERTs for bulk loads, written as SQL text directly: building a
// 1,000-row insert through Kysely's query builder cost more than running it.
// Table and column names come from our code, never from input.
import { CompiledQuery, type Kysely } from 'kysely';
import type { Engine } from './database.ts';

export async function bulkInsert<R = unknown>(
  db: Kysely<any>, engine: Engine, table: string, columns: readonly string[], rows: ReadonlyArray<readonly unknown[]>, returning?: readonly string[],
): Promise<R[]> {
  if (rows.length === 0) return [];
  const params: unknown[] = [];
  const tuples = rows.map((row) => {
    const marks = row.map((value) => {
      params.push(value === undefined ? null : value);
      return engine === 'postgres' ? `$${params.length}` : '?';
    });
    return `(${marks.join(',')})`;
  });
  const text = `insert into ${table} (${columns.join(',')}) values ${tuples.join(',')}${returning === undefined ? '' : ` returning ${returning.join(',')}`}`;
  const result = await db.executeQuery<R>(CompiledQuery.raw(text, params));
  return result.rows;
}
