// The column types that differ between the two engines, in one place.
import type { ColumnDefinitionBuilder } from 'kysely';
import type { Engine } from './database.ts';

export function columnTypes(engine: Engine) {
  const sqlite = engine === 'sqlite';
  return {
    // SQLite: an INTEGER PRIMARY KEY is the rowid (64-bit). PostgreSQL: bigint identity.
    id: sqlite ? ('integer' as const) : ('bigint' as const),
    idConstraints: (c: ColumnDefinitionBuilder) => (sqlite ? c.primaryKey().autoIncrement() : c.primaryKey().generatedByDefaultAsIdentity()),
    ref: sqlite ? ('integer' as const) : ('bigint' as const),
    money: sqlite ? ('integer' as const) : ('bigint' as const),
    real: sqlite ? ('real' as const) : ('double precision' as const),
  };
}
