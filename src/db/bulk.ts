// Multi-row INSERTs and other statements written as SQL text directly:
// building a 1,000-row insert through Kysely's query builder cost more than
// running it. Table and column names come from our code, never from input.
import { DIALECTS, dialectOf, type Dialect } from './dialect.ts';
import { CompiledQuery, sql, type Kysely, type RawBuilder } from 'kysely';
import type { Engine } from './database.ts';
import { assert, assertSafeInteger } from '../shared/assert.ts';
import { prepareText } from './prepared.ts';

/** Most rows one INSERT carries: within every engine's limit on bound parameters. */
const ROWS_PER_INSERT = 1000;

export async function bulkInsert<R = unknown>(
  db: Kysely<any>,
  table: string,
  columns: readonly string[],
  rows: ReadonlyArray<readonly unknown[]>,
  returning?: readonly string[],
): Promise<R[]> {
  const { engine } = dialectOf(db);
  if (rows.length === 0) return [];
  const params: unknown[] = [];
  const text = `${insertText(engine, table, columns, rows, params)}${returning === undefined ? '' : ` returning ${returning.join(',')}`}`;
  const result = await db.executeQuery<R>(CompiledQuery.raw(text, params));
  return result.rows;
}

/** Where the `n`th bound value (from 1) goes in a statement's SQL. */
function placeholder(engine: Engine, n: number): string {
  return engine === 'postgres' ? `$${n}` : '?';
}

function mark(engine: Engine, params: unknown[], value: unknown): string {
  params.push(value === undefined ? null : value);
  return placeholder(engine, params.length);
}

/** The SQL of an insert by its shape (engine, table, columns, rows): a bulk load sends the same shape thousands of times. */
const insertTexts = new Map<string, string>();
const INSERT_TEXTS_MAX = 200;

export function insertText(engine: Engine, table: string, columns: readonly string[], rows: ReadonlyArray<readonly unknown[]>, params: unknown[]): string {
  const first = params.length;
  for (const row of rows) {
    // The message is built only when it fails: this loop runs for every row of a bulk load.
    if (row.length !== columns.length) assert(false, `a value for each of the ${columns.length} columns of ${table}`);
    for (const value of row) params.push(value === undefined ? null : value);
  }
  const key = `${engine} ${first} ${table} ${columns.join(',')} ${rows.length}`;
  let text = insertTexts.get(key);
  if (text === undefined) {
    let n = first;
    const tuple = () => `(${columns.map(() => placeholder(engine, ++n)).join(',')})`;
    text = `insert into ${table} (${columns.join(',')}) values ${rows.map(tuple).join(',')}`;
    if (insertTexts.size >= INSERT_TEXTS_MAX) insertTexts.clear();
    insertTexts.set(key, text);
  }
  return text;
}

/** A statement that returns nothing; `text` appends its values to `params` and returns its SQL. */
export interface Statement {
  text(engine: Engine, params: unknown[]): string;
  /**
   * On PostgreSQL its SQL is the same whatever rows it carries (they go as one
   * JSON value): a statement made only of such parts is prepared, planned once
   * per connection instead of on every run.
   */
  readonly sameText?: boolean;
}

/**
 * INSERTs of `rows` into the columns `types` defines (`id bigint, memo text`: each column's name
 * and its type in the table), one statement per ROWS_PER_INSERT rows, each followed by
 * `onConflict` when given (an upsert). On PostgreSQL the rows go as one JSON value
 * (`jsonRowsFrom`), so the SQL is the same for any number of rows; on SQLite each value is bound.
 */
export function insertRows(table: string, types: string, rows: ReadonlyArray<readonly unknown[]>, onConflict?: string): Statement[] {
  const columns = columnNames(types);
  const list = columns.join(',');
  const out: Statement[] = [];
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
    const chunk = rows.slice(i, i + ROWS_PER_INSERT);
    out.push({
      sameText: true,
      text: (engine, params) => {
        const insert =
          engine === 'sqlite' ? insertText(engine, table, columns, chunk, params) : `insert into ${table} (${list}) select ${list} from ${postgresRows(params, types, chunk, 'r')}`;
        return onConflict === undefined ? insert : `${insert} ${onConflict}`;
      },
    });
  }
  return out;
}

/** Column definitions (`id bigint, cents bigint`), parsed once per text: the names, and the row's values as each engine reads them. */
interface Columns {
  names: readonly string[];
  /** PostgreSQL: each value taken from a row's array by its position and cast to its column's type. */
  casts: string;
  /** SQLite: each value taken from a row's array (json_each's `value`) by its position. */
  extracts: string;
}

const parsedTypes = new Map<string, Columns>();

/** `types` parsed (no type with a comma in it), kept by its text: statements name the same few again and again. */
function columnsOf(types: string): Columns {
  let columns = parsedTypes.get(types);
  if (columns === undefined) {
    const definitions = types.split(',').map((t) => t.trim().split(/\s+/));
    columns = {
      names: definitions.map(([name]) => name as string),
      casts: definitions.map(([name, ...type], i) => `cast(e->>${i} as ${type.join(' ')}) as ${name}`).join(', '),
      extracts: definitions.map(([name], i) => `json_extract(value, '$[${i}]') as ${name}`).join(', '),
    };
    if (parsedTypes.size >= INSERT_TEXTS_MAX) parsedTypes.clear();
    parsedTypes.set(types, columns);
  }
  return columns;
}

/** The names of the columns of `types` (`id bigint, cents bigint`), in order. */
export function columnNames(types: string): readonly string[] {
  return columnsOf(types).names;
}

/**
 * `rows` as one JSON value, an array of arrays (each row's values in its columns' order), bound
 * last in `params`. Values are strings, safe integers, booleans or null (undefined is null): what
 * the tables written so hold; anything else is refused before anything is sent. Arrays, not an
 * object per row: a third of the bytes, and JSON.stringify writes them several times faster
 * (docs/performance-history.md, 2026-12-03).
 */
export function bindJsonRows(params: unknown[], columns: readonly string[], rows: ReadonlyArray<readonly unknown[]>): number {
  for (const row of rows) {
    if (row.length !== columns.length) assert(false, `a value for each of the ${columns.length} columns`);
    for (let i = 0; i < row.length; i++) {
      const v = row[i];
      // The message is built only when it fails: this loop runs for every value of every row.
      if (!(v === null || v === undefined || typeof v === 'string' || typeof v === 'boolean' || Number.isSafeInteger(v))) {
        assert(false, `${columns[i]}: a string, a safe integer, a boolean or null`);
      }
    }
  }
  params.push(JSON.stringify(rows));
  return params.length;
}

/**
 * `rows` as a FROM item named `alias` with the columns `types` defines (`id bigint, cents
 * bigint`), its values bound as one JSON value (`bindJsonRows`), for a statement that inserts them
 * or joins them to a table, the same SQL for any number of rows. On PostgreSQL, read from
 * jsonb_array_elements (parsed once, each value then taken by its position and cast to its
 * column's type; `json` would parse each row again for every column). The planner takes a
 * set-returning function for 100 rows, so such a join hashed a sequential scan of the whole table
 * until the table outgrew a hundred index probes (an idempotency key's outcome scanned every key
 * of the last day); a LIMIT of the rows' own count (a bound value, never fewer than there are)
 * tells it how many there are, so each row is one index probe at any size. On SQLite, json_each,
 * each column read by its position.
 */
export function jsonRowsFrom(dialect: Dialect, params: unknown[], types: string, rows: ReadonlyArray<readonly unknown[]>, alias: string): string {
  if (dialect.engine === 'postgres') return postgresRows(params, types, rows, alias);
  const { names, extracts } = columnsOf(types);
  bindJsonRows(params, names, rows);
  return `(select ${extracts} from json_each(?)) as ${alias}`;
}

/** PostgreSQL: `jsonRowsFrom` in a statement written for PostgreSQL alone. */
export function postgresRows(params: unknown[], types: string, rows: ReadonlyArray<readonly unknown[]>, alias: string): string {
  const { names, casts } = columnsOf(types);
  const json = bindJsonRows(params, names, rows);
  params.push(rows.length);
  return `(select ${casts} from jsonb_array_elements(cast($${json} as jsonb)) as e limit $${params.length}) as ${alias}`;
}

/**
 * A statement over `rows` as a FROM item named `alias` (`jsonRowsFrom`), one text for both
 * engines and any number of rows: `write` is given the FROM item. On SQLite this replaces a
 * statement that named each row in its SQL: a CASE of a thousand branches, tried for every row it
 * updated, cost 8x an UPDATE ... FROM of the same rows (docs/performance-history.md, 2026-12-03).
 */
export function fromRowsStatement(types: string, rows: ReadonlyArray<readonly unknown[]>, alias: string, write: (from: string) => string): Statement {
  return { sameText: true, text: (engine, params) => write(jsonRowsFrom(DIALECTS[engine], params, types, rows, alias)) };
}

/** A statement written with `value` marking where each bound value goes. */
export function statement(write: (value: (v: unknown) => string) => string): Statement {
  return { text: (engine, params) => write((v) => mark(engine, params, v)) };
}

/**
 * A statement written differently on PostgreSQL, where its rows go as one
 * JSON value (`jsonRows`) and its SQL is the same for any number of them.
 */
export function rowsStatement(sqliteText: (value: (v: unknown) => string) => string, postgresText: (params: unknown[]) => string): Statement {
  return {
    sameText: true,
    text: (engine, params) => (engine === 'postgres' ? postgresText(params) : sqliteText((v) => mark(engine, params, v))),
  };
}

/**
 * Runs statements that return nothing, in order. On PostgreSQL they go as one
 * statement (data-modifying WITH clauses), so a use case's writes cost one
 * round trip while it holds its locks; they then see the database as it was
 * before all of them (none of ours reads what another writes; foreign keys
 * are checked at the end of the statement). SQLite has no round trips to save.
 */
export async function runStatements(db: Kysely<any>, statements: readonly Statement[]): Promise<void> {
  const { engine } = dialectOf(db);
  if (statements.length === 0) return;
  if (engine === 'postgres' && statements.length > 1) {
    const params: unknown[] = [];
    const text = `with ${withClauses(statements, params).join(', ')} select 1`;
    if (statements.every((s) => s.sameText === true)) prepareText(text);
    await db.executeQuery(CompiledQuery.raw(text, params));
    return;
  }
  for (const s of statements) {
    const params: unknown[] = [];
    const text = s.text(engine, params);
    await db.executeQuery(CompiledQuery.raw(text, params));
  }
}

/** PostgreSQL: each statement as a data-modifying WITH clause, `w0` on. */
function withClauses(statements: readonly Statement[], params: unknown[]): string[] {
  return statements.map((s, i) => `w${i} as (${s.text('postgres', params)})`);
}

/** The SQLSTATE of almoner_expect (migration 012): a guarded write found its assumption false and wrote nothing. */
export const EXPECTATION_FAILED = 'AL001';

export function isExpectationFailed(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === EXPECTATION_FAILED;
}

/**
 * PostgreSQL, outside a transaction: `guard`, a data-modifying statement
 * returning the columns `id` and `value`, and then `statements`, all as one
 * statement, so one round trip and one commit. It writes only if `guard`
 * returned exactly `rows` rows, whose values it resolves to by id; otherwise
 * nothing at all is written and it throws an error with code
 * EXPECTATION_FAILED. Every clause sees the database as it was when the
 * statement began, except that `guard`, an UPDATE, first waits for the rows
 * another transaction holds and then tests each as it was committed: the
 * guard is a compare-and-set of every row it names.
 */
export async function runIfAllRows(
  db: Kysely<any>,
  guard: Statement,
  rows: number,
  statements: readonly Statement[],
  what: string,
  /** A further condition (SQL appending its values to `params`): nothing is written unless it holds too. */
  also?: (params: unknown[]) => string,
  /** Further compare-and-sets, data-modifying statements returning a row for each row they changed: nothing is written unless they changed exactly `rows` in all. */
  counted?: { statements: readonly Statement[]; rows: number },
): Promise<Map<number, unknown>> {
  const params: unknown[] = [];
  const parts = [`g as (${guard.text('postgres', params)})`, ...withClauses(statements, params)];
  const countedStatements = counted?.statements ?? [];
  countedStatements.forEach((s, i) => parts.push(`c${i} as (${s.text('postgres', params)})`));
  let condition = also === undefined ? '' : ` and (${also(params)})`;
  if (counted !== undefined && countedStatements.length > 0) {
    params.push(counted.rows);
    condition += ` and (${countedStatements.map((_, i) => `(select count(*) from c${i})`).join(' + ')}) = $${params.length}`;
  }
  params.push(rows, what);
  const text = `with ${parts.join(', ')} select almoner_expect(count(*) = $${params.length - 1}${condition}, $${params.length}) as ok, array_agg(id) as ids, array_agg(value) as vals from g`;
  if (guard.sameText === true && statements.every((s) => s.sameText === true) && countedStatements.every((s) => s.sameText === true)) prepareText(text);
  const result = await db.executeQuery<{ ids: unknown[] | null; vals: unknown[] | null }>(CompiledQuery.raw(text, params));
  const { ids = [], vals = [] } = result.rows[0] ?? {};
  return new Map((ids ?? []).map((id, i) => [Number(id), (vals ?? [])[i]]));
}

/**
 * `ids` as a subquery of one bound JSON value, for `column in (...)`: the same SQL for any number
 * of ids, which PostgreSQL plans as index probes (a list of thousands of bound values costs it tens
 * of milliseconds to parse and plan; docs/performance-history.md, 2026-11-30).
 */
export function idsIn(db: Kysely<any>, ids: readonly number[], what: string): RawBuilder<unknown> {
  for (const id of ids) assertSafeInteger(id, what);
  const json = JSON.stringify(ids);
  return dialectOf(db).engine === 'postgres'
    ? sql`(select cast(value as bigint) from json_array_elements_text(cast(${json} as json)))`
    : sql`(select value from json_each(${json}))`;
}
