// rules §14: sandbox and live are two books. Every user, fund, ledger
// account, journal entry, posting, donation, gift, contribution and scheduled
// donation says which book it is in. The database itself refuses a posting
// whose entry or account is in another book: postings reference
// journal_entries(id, book) and ledger_accounts(id, book). Each book has its
// own outside accounts (deposits, grants paid).
//
// Existing data: the sandbox twins' rows move to the test book, sandbox keys to the twins, and so do the
// postings their entries made on the shared outside accounts (whose balances
// are then recomputed). An entry that already crossed books (the flaw this
// fixes) is kept as it is, so that `almoner check` reports it.
import { sql, type Kysely } from 'kysely';
import { columnTypes } from '../types.ts';
import type { Engine } from '../database.ts';

/** SQLite rebuilds `postings`: the runner turns its foreign keys off around this migration. */
export const rebuildsTables = true;

const OBJECT_TABLES = ['donations', 'gifts', 'contributions', 'scheduled_donations'] as const;

export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  const t = columnTypes(engine);
  const addBook = (table: string) => sql`alter table ${sql.table(table)} add column book text not null default 'live' check (book in ('live', 'test'))`.execute(db);

  await addBook('users');
  await sql`update users set book = 'test' where sandbox_of is not null`.execute(db);
  // A sandbox key made on the web belonged to the live user (acting in the live book): it moves to
  // the user's twin where there is one, and is revoked where there is none (a twin is made on first use).
  await sql`update api_keys set user_id = (select t.id from users t where t.sandbox_of = api_keys.user_id)
    where mode = 'test' and exists (select 1 from users t where t.sandbox_of = api_keys.user_id)`.execute(db);
  await sql`update api_keys set revoked_at = ${new Date().toISOString()}
    where mode = 'test' and revoked_at is null and user_id in (select id from users where book = 'live')`.execute(db);
  await sql`update auth_epoch set epoch = epoch + 1`.execute(db);
  await addBook('funds');
  await sql`update funds set book = 'test' where user_id in (select id from users where book = 'test')`.execute(db);
  await sql`create unique index funds_id_book on funds (id, book)`.execute(db);
  for (const table of OBJECT_TABLES) {
    await addBook(table);
    await sql`update ${sql.table(table)} set book = 'test' where fund_id in (select id from funds where book = 'test')`.execute(db);
  }

  await addBook('ledger_accounts');
  await sql`update ledger_accounts set book = 'test' where fund_id in (select id from funds where book = 'test')`.execute(db);
  await sql`create unique index ledger_accounts_id_book on ledger_accounts (id, book)`.execute(db);
  for (const kind of ['deposits', 'grants_paid']) {
    await sql`insert into ledger_accounts (fund_id, kind, balance_cents, book) values (null, ${kind}, 0, 'test')`.execute(db);
  }

  await addBook('journal_entries');
  await sql`update journal_entries set book = 'test' where id in (
    select p.entry_id from postings p join ledger_accounts a on a.id = p.account_id where a.book = 'test')`.execute(db);
  await sql`create unique index journal_entries_id_book on journal_entries (id, book)`.execute(db);
  // A sandbox entry's outside posting moves to the sandbox's own outside account of that kind.
  await sql`update postings set account_id = (
      select s.id from ledger_accounts s join ledger_accounts o on o.kind = s.kind
      where o.id = postings.account_id and s.fund_id is null and s.book = 'test')
    where account_id in (select id from ledger_accounts where fund_id is null and book = 'live')
      and entry_id in (select id from journal_entries where book = 'test')`.execute(db);
  await sql`update ledger_accounts set balance_cents = coalesce((select sum(p.amount_cents) from postings p where p.account_id = ledger_accounts.id), 0)
    where fund_id is null`.execute(db);

  // The audit log: what was done to sandbox objects (by the sandbox clock, or an operator) is the test book's.
  await addBook('audit_log');
  await sql`update audit_log set book = 'test' where actor = 'sandbox'
    or (object_type = 'donation' and object_id in (select id from donations where book = 'test'))
    or (object_type = 'contribution' and object_id in (select id from contributions where book = 'test'))
    or (object_type = 'fund' and object_id in (select id from funds where book = 'test'))
    or (object_type = 'user' and object_id in (select id from users where book = 'test'))`.execute(db);

  // Others see only the public donations that happened (rules §8): the count of them too.
  await sql`update donation_counts set public_total = (select count(*) from donations d
    where d.user_id = donation_counts.user_id and d.visibility = 'public' and d.status not in ('not_completed', 'rejected'))`.execute(db);

  // A posting is in its entry's book; its account must be too.
  if (engine === 'postgres') {
    await sql`alter table postings add column book text not null default 'live'`.execute(db);
    await sql`update postings set book = 'test' where entry_id in (select id from journal_entries where book = 'test')`.execute(db);
    await sql`alter table postings drop constraint if exists postings_entry_id_fkey`.execute(db);
    await sql`alter table postings drop constraint if exists postings_account_id_fkey`.execute(db);
    await sql`alter table postings add constraint postings_entry_book_fkey foreign key (entry_id, book) references journal_entries (id, book)`.execute(db);
    // NOT VALID keeps an upgrade possible over a journal that already crossed
    // books (almoner check reports it); new rows are always checked.
    await sql`alter table postings add constraint postings_account_book_fkey foreign key (account_id, book) references ledger_accounts (id, book) not valid`.execute(db);
    const crossed = await sql<{ n: string }>`select count(*) as n from postings p join ledger_accounts a on a.id = p.account_id where a.book <> p.book`.execute(db);
    if (Number(crossed.rows[0]?.n ?? 0) === 0) await sql`alter table postings validate constraint postings_account_book_fkey`.execute(db);
    return;
  }
  await sql`create table postings_new (
    id ${sql.raw(t.id)} primary key autoincrement,
    entry_id ${sql.raw(t.ref)} not null,
    account_id ${sql.raw(t.ref)} not null,
    amount_cents ${sql.raw(t.money)} not null,
    book text not null default 'live' check (book in ('live', 'test')),
    foreign key (entry_id, book) references journal_entries (id, book),
    foreign key (account_id, book) references ledger_accounts (id, book))`.execute(db);
  await sql`insert into postings_new (id, entry_id, account_id, amount_cents, book)
    select p.id, p.entry_id, p.account_id, p.amount_cents, j.book from postings p join journal_entries j on j.id = p.entry_id`.execute(db);
  await sql`drop table postings`.execute(db);
  await sql`alter table postings_new rename to postings`.execute(db);
  await sql`create index postings_entry on postings (entry_id)`.execute(db);
  await sql`create index postings_account on postings (account_id)`.execute(db);
}
