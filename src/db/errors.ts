// What a database error means, on either engine: the one place that reads
// engines' error codes. A database that cannot be reached is no bug (503); a
// unique violation is a domain outcome a use case may retry (the next slug) or
// answer as a conflict (409), never a 500.
import pg from 'pg';
import type { Kysely } from 'kysely';
import { dialectOf } from './dialect.ts';

/** The database cannot be reached (or is busy past its timeout): answered 503, tried again later. */
export function isUnavailable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string') {
    if (['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', '57P01', '57P03', '08006', '08001', '08003', '53300', '57014'].includes(code)) return true;
    if (code === 'ERR_SQLITE_ERROR' && /busy|locked/i.test(String((error as Error).message))) return true;
  }
  // (pg's own messages: a connection that cannot be made in time, by the pool or by a client of its
  // own as the pipelined lookups use; one lost; a statement past its client-side deadline.)
  return (
    error instanceof Error &&
    (/timeout exceeded when trying to connect|Connection terminated|connection error and is not queryable|Client was closed|Query read timeout/i.test(error.message) ||
      error.message === 'timeout expired')
  );
}

/** A unique index refused a row: PostgreSQL's 23505, SQLite's SQLITE_CONSTRAINT_UNIQUE (or PRIMARYKEY). */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: unknown; errcode?: unknown; errstr?: unknown; message?: unknown } | null;
  if (e === null || typeof e !== 'object') return false;
  if (e.code === '23505') return true;
  return e.code === 'ERR_SQLITE_ERROR' && /UNIQUE constraint failed|PRIMARY KEY constraint failed/i.test(String(e.message));
}

/**
 * Whether a failed write may still have committed: on PostgreSQL, when the
 * error is not the server's own answer (an ErrorResponse, after which what
 * was refused is rolled back) but a lost or broken connection, the statement
 * or COMMIT sent may have taken effect. Such a write must not be tried again
 * as if it had not. SQLite runs in the process: its errors are answers.
 */
export function outcomeUnknown(db: Kysely<any>, error: unknown): boolean {
  return dialectOf(db).engine === 'postgres' && !(error instanceof pg.DatabaseError);
}
