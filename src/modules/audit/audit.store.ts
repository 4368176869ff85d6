// The audit log: who did what to which object, when, and its state before
// and after. Written in the same database transaction as the action.
import type { Trx } from '../../db/database.ts';
import type { Book } from '../../shared/book.ts';

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

export async function recordAudit(trx: Trx, entry: AuditEntry): Promise<void> {
  await trx.insertInto('audit_log').values({
    book: entry.book,
    actor: entry.actor,
    action: entry.action,
    object_type: entry.object_type,
    object_id: entry.object_id,
    before: entry.before === undefined ? null : JSON.stringify(entry.before),
    after: entry.after === undefined ? null : JSON.stringify(entry.after),
    created_at: entry.at,
  }).execute();
}
