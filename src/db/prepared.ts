// Hot queries compiled once. Kysely builds and compiles a query on every
// call; for the few statements that run on every request (the caller's key,
// a list page) that cost ~100 us, more than SQLite's own work. A prepared
// query is built once per database with named placeholders, then executed
// with values put in their places. On PostgreSQL its SQL also goes as a named
// statement (statementName, used by db/database.ts): each connection parses
// and plans it once instead of on every call, which cost more than running it.
import type { Compilable, CompiledQuery, Kysely } from 'kysely';

const MARK = '\u0000almoner-param:';

const names = new Map<string, string>();

/** The statement name of a prepared query's SQL, the same in every connection; undefined for any other SQL. */
export function statementName(sql: string): string | undefined {
  return names.get(sql);
}

/** The most statements named by prepareText: SQL built at run time, whose kinds our code bounds, and this bounds again. */
const BUILT_MAX = 500;
let built = 0;

/**
 * Names SQL built at run time whose text does not depend on the rows it
 * carries (db/bulk.ts), so that it goes as a named statement too.
 */
export function prepareText(sql: string): void {
  if (names.has(sql) || built >= BUILT_MAX) return;
  built += 1;
  names.set(sql, `almoner_${names.size + 1}`);
}

/** Stands for the value named `name` when the query is run. */
export type Param = <T = never>(name: string) => T;

export function prepared<DB, Row, Values extends Record<string, unknown>>(
  build: (db: Kysely<DB>, param: Param) => Compilable<Row>,
): (db: Kysely<DB>, values: Values) => Promise<Row[]> {
  // Keyed by the dialect's adapter: the SQL depends only on the dialect, and
  // every transaction of a database shares its adapter.
  const cache = new WeakMap<object, CompiledQuery<Row>>();
  const param: Param = <T>(name: string) => `${MARK}${name}` as T;
  return async (db, values) => {
    const key = db.getExecutor().adapter;
    let compiled = cache.get(key);
    if (compiled === undefined) {
      compiled = build(db, param).compile();
      cache.set(key, compiled);
      if (!names.has(compiled.sql)) names.set(compiled.sql, `almoner_${names.size + 1}`);
    }
    const parameters = compiled.parameters.map((p) => {
      if (typeof p !== 'string' || !p.startsWith(MARK)) return p;
      const name = p.slice(MARK.length);
      if (!(name in values)) throw new Error(`prepared query: no value for ${name}`);
      return values[name];
    });
    const result = await db.executeQuery<Row>({ ...compiled, parameters });
    return result.rows;
  };
}
