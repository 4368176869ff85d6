// The audit log: who did what to which object, when, and its state before
// and after. Written in the same database transaction as the action.
import type { Db, Trx } from '../../db/database.ts';
import { offsetOf, type PageRequest } from '../../shared/page.ts';
import type { Book } from '../../shared/book.ts';
import { insertRows, runStatements, type Statement } from '../../db/bulk.ts';

export interface AuditEntry {
  /** The book of the object acted on. */
  book: Book;
  actor: string;
  action: string;
  object_type: string;
  object_id: number;
  before: unknown;
  after: unknown;
  at: string;
}

/** Writes an audit entry; returns its id. */
export async function recordAudit(trx: Trx, entry: AuditEntry): Promise<number> {
  const row = await trx
    .insertInto('audit_log')
    .values({
      book: entry.book,
      actor: entry.actor,
      action: entry.action,
      object_type: entry.object_type,
      object_id: entry.object_id,
      before: entry.before === undefined ? null : JSON.stringify(entry.before),
      after: entry.after === undefined ? null : JSON.stringify(entry.after),
      created_at: entry.at,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Writes many audit entries at once (a payment run's donations), a statement of up to a thousand at a time. */
export async function recordAudits(trx: Trx, entries: readonly AuditEntry[]): Promise<void> {
  for (const statement of auditStatements(entries)) await runStatements(trx, [statement]);
}

/** The statements that write many audit entries, a thousand to a statement. */
function auditStatements(entries: readonly AuditEntry[]): Statement[] {
  return insertRows(
    'audit_log',
    'book text, actor text, action text, object_type text, object_id bigint, before text, after text, created_at text',
    entries.map((e) => [
      e.book,
      e.actor,
      e.action,
      e.object_type,
      e.object_id,
      e.before === undefined ? null : JSON.stringify(e.before),
      e.after === undefined ? null : JSON.stringify(e.after),
      e.at,
    ]),
  );
}

export interface AuditFilter {
  object_type?: string;
  object_id?: number;
}

/** A page of a book's audit log, newest first. */
export async function listAudit(db: Db, book: Book, filter: AuditFilter, page: PageRequest) {
  let q = db.selectFrom('audit_log').selectAll().where('book', '=', book);
  if (filter.object_type !== undefined) q = q.where('object_type', '=', filter.object_type);
  if (filter.object_id !== undefined) q = q.where('object_id', '=', filter.object_id);
  return q.orderBy('id', 'desc').limit(page.per_page).offset(offsetOf(page)).execute();
}
