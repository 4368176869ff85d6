// A posting names an account and a journal entry of its own book (rules §14), refused by the
// database itself on both engines: SQLite's foreign keys, PostgreSQL's per-statement triggers
// (migration 025, ADR 9). Each refusal writes nothing. On PostgreSQL the triggers also lock what
// a posting names, as the keys did: an account cannot be deleted under a posting being written.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { engines, openEnv, makeUser, fund, fingerprint, assertLedgerBalanced, whileHeld, type TestEnv, type TestUser } from './harness.ts';
import type { Db } from '../src/db/database.ts';

type Book = 'live' | 'test';

for (const { name: engine } of engines()) {
  describe(`postings stay in their book on ${engine}`, () => {
    let env: TestEnv;
    let bob: TestUser;
    /** Bob's available account (live), the sandbox's deposits account (test), one of Bob's entries (live). */
    let live: number;
    let sandbox: number;
    let entry: number;
    const refused = engine === 'postgres' ? { code: '23503' } : /FOREIGN KEY constraint failed/;

    before(async () => {
      env = await openEnv(engine);
      bob = await makeUser(env.deps, { name: 'Bob' });
      await fund(env.deps, bob, 10_000);
      const db = env.deps.db;
      live = (await db.selectFrom('ledger_accounts').select('id').where('fund_id', '=', bob.fund_id).where('kind', '=', 'available').executeTakeFirstOrThrow()).id;
      sandbox = (
        await db.selectFrom('ledger_accounts').select('id').where('fund_id', 'is', null).where('kind', '=', 'deposits').where('book', '=', 'test').executeTakeFirstOrThrow()
      ).id;
      entry = (await db.selectFrom('postings').select('entry_id').where('account_id', '=', live).executeTakeFirstOrThrow()).entry_id;
    });
    after(async () => env.close());

    const post = (db: Db, rows: ReadonlyArray<{ entry_id: number; account_id: number; book: Book }>) =>
      db
        .insertInto('postings')
        .values(rows.map((r) => ({ ...r, amount_cents: 0 })))
        .execute();
    /** An account of no fund and no postings, in `book`. */
    const probeAccount = async (db: Db, kind: string, book: Book = 'live') =>
      (await db.insertInto('ledger_accounts').values({ fund_id: null, kind, balance_cents: 0, book }).returning('id').executeTakeFirstOrThrow()).id;

    test('a posting on an account or an entry of the other book is refused, and so is every row inserted with it', async () => {
      const before = await fingerprint(env.deps);
      await assert.rejects(post(env.deps.db, [{ entry_id: entry, account_id: sandbox, book: 'live' }]), refused, 'an account of the other book');
      await assert.rejects(post(env.deps.db, [{ entry_id: entry, account_id: sandbox, book: 'test' }]), refused, 'an entry of the other book');
      await assert.rejects(post(env.deps.db, [{ entry_id: entry, account_id: 999_999_001, book: 'live' }]), refused, 'no such account');
      await assert.rejects(post(env.deps.db, [{ entry_id: 999_999_002, account_id: live, book: 'live' }]), refused, 'no such entry');
      await assert.rejects(
        post(env.deps.db, [
          { entry_id: entry, account_id: live, book: 'live' },
          { entry_id: entry, account_id: sandbox, book: 'live' },
        ]),
        refused,
        'one bad row among good ones',
      );
      assert.deepEqual(await fingerprint(env.deps), before, 'nothing was written');
    });

    test('a posting moved onto the other book is refused', async () => {
      const before = await fingerprint(env.deps);
      const one = env.deps.db.updateTable('postings').where('entry_id', '=', entry).where('account_id', '=', live);
      await assert.rejects(one.set({ account_id: sandbox }).execute(), refused, 'onto an account of the other book');
      await assert.rejects(one.set({ book: 'test' }).execute(), refused, 'into the other book');
      assert.deepEqual(await fingerprint(env.deps), before, 'nothing was written');
    });

    test('an account or entry with postings is not deleted, nor its id or book changed; its balance still moves', async () => {
      const db = env.deps.db;
      const before = await fingerprint(env.deps);
      await assert.rejects(db.deleteFrom('ledger_accounts').where('id', '=', live).execute(), refused, 'an account deleted');
      await assert.rejects(db.updateTable('ledger_accounts').set({ book: 'test' }).where('id', '=', live).execute(), refused, "an account's book");
      await assert.rejects(db.updateTable('ledger_accounts').set({ id: 999_999_003 }).where('id', '=', live).execute(), refused, "an account's id");
      await assert.rejects(db.deleteFrom('journal_entries').where('id', '=', entry).execute(), refused, 'an entry deleted');
      await assert.rejects(db.updateTable('journal_entries').set({ book: 'test' }).where('id', '=', entry).execute(), refused, "an entry's book");
      assert.deepEqual(await fingerprint(env.deps), before, 'nothing was written');
      // What the rule leaves alone: a balance moved (the hot path's update), a book named again, an account of no postings.
      await db
        .updateTable('ledger_accounts')
        .set((eb) => ({ balance_cents: eb('balance_cents', '+', 0), book: eb.ref('book') }))
        .where('id', '=', live)
        .execute();
      const unused = await probeAccount(db, 'probe unused');
      await db.updateTable('ledger_accounts').set({ book: 'test' }).where('id', '=', unused).execute();
      await db.deleteFrom('ledger_accounts').where('id', '=', unused).execute();
      assert.deepEqual(await fingerprint(env.deps), before);
      await assertLedgerBalanced(env.deps);
    });

    if (engine !== 'postgres') return;

    test('an account cannot be deleted while a posting on it is being written: the delete waits, then is refused', async () => {
      const db = env.deps.db;
      const account = await probeAccount(db, 'probe posted');
      const { waited, outcome } = await whileHeld(
        env.deps.db,
        (trx) => post(trx, [{ entry_id: entry, account_id: account, book: 'live' }]),
        () => db.deleteFrom('ledger_accounts').where('id', '=', account).execute(),
      );
      assert.equal(waited, true, 'the delete waits for the posting to commit');
      await assert.rejects(outcome, refused, 'then sees the posting and is refused');
      assert.ok(await db.selectFrom('ledger_accounts').select('id').where('id', '=', account).executeTakeFirst(), 'the account is still there');
    });

    test('a posting on an account being deleted waits for the delete, then is refused', async () => {
      const db = env.deps.db;
      const account = await probeAccount(db, 'probe deleted');
      const { waited, outcome } = await whileHeld(
        env.deps.db,
        (trx) => trx.deleteFrom('ledger_accounts').where('id', '=', account).execute(),
        () => post(db, [{ entry_id: entry, account_id: account, book: 'live' }]),
      );
      assert.equal(waited, true, 'the posting waits for the delete to commit');
      await assert.rejects(outcome, refused, 'then finds no account and is refused');
      const orphans = await sql<{ n: number }>`select count(*)::int as n from postings where account_id = ${account}`.execute(db);
      assert.equal(orphans.rows[0]?.n, 0, 'no posting names the deleted account');
    });

    /** A journal entry written in `db` (a transaction's, say), in `book`. */
    const newEntry = async (db: Db, book: Book = 'live') =>
      (await db.insertInto('journal_entries').values({ memo: 'probe', created_at: new Date().toISOString(), book }).returning('id').executeTakeFirstOrThrow()).id;
    /** The row's xmax: 0 unless a transaction deleted, updated or locked it. */
    const xmax = async (db: Db, table: 'ledger_accounts' | 'journal_entries', id: number) =>
      (await sql<{ xmax: string }>`select xmax::text as xmax from ${sql.table(table)} where id = ${id}`.execute(db)).rows[0]?.xmax;

    test("rows the posting's own transaction wrote are checked without a lock of their own (migration 067), and still in their book", async () => {
      const db = env.deps.db;
      await db.transaction().execute(async (trx) => {
        const account = await probeAccount(trx, 'probe own');
        const own = await newEntry(trx);
        await post(trx, [{ entry_id: own, account_id: account, book: 'live' }]);
        // A lock would have set each row's xmax to this transaction; nothing else could delete them before it commits.
        assert.equal(await xmax(trx, 'ledger_accounts', account), '0', 'its own account not locked again');
        assert.equal(await xmax(trx, 'journal_entries', own), '0', 'its own entry not locked again');
      });
      const before = await fingerprint(env.deps);
      for (const [entryBook, accountBook] of [
        ['live', 'test'],
        ['test', 'live'],
      ] as const) {
        await assert.rejects(
          db.transaction().execute(async (trx) => {
            const account = await probeAccount(trx, 'probe own crossed', accountBook);
            await post(trx, [{ entry_id: await newEntry(trx, entryBook), account_id: account, book: 'live' }]);
          }),
          refused,
          `its own ${entryBook === 'live' ? 'account' : 'entry'} in the other book`,
        );
      }
      assert.deepEqual(await fingerprint(env.deps), before, 'nothing was written');
    });

    test("with its own rows and another's named in one statement, only the other's is locked (migration 070), and each is still in its book", async () => {
      const db = env.deps.db;
      const other = await probeAccount(db, 'probe other');
      await db.transaction().execute(async (trx) => {
        const own = await probeAccount(trx, 'probe own beside');
        const updated = await probeAccount(db, 'probe updated');
        await trx.updateTable('ledger_accounts').set({ balance_cents: 5 }).where('id', '=', updated).execute();
        const xmaxBefore = await xmax(trx, 'ledger_accounts', updated);
        await post(
          trx,
          [own, updated, other].map((account_id) => ({ entry_id: entry, account_id, book: 'live' as const })),
        );
        assert.equal(await xmax(trx, 'ledger_accounts', own), '0', 'its own new account not locked');
        assert.equal(await xmax(trx, 'ledger_accounts', updated), xmaxBefore, "the account it updated keeps its update's lock alone");
        assert.notEqual(await xmax(trx, 'ledger_accounts', other), '0', "another's account locked");
        assert.notEqual(await xmax(trx, 'journal_entries', entry), '0', "another's entry locked");
      });
      const before = await fingerprint(env.deps);
      await assert.rejects(
        db.transaction().execute(async (trx) => {
          const own = await probeAccount(trx, 'probe own, crossed beside', 'test');
          await post(
            trx,
            [own, other].map((account_id) => ({ entry_id: entry, account_id, book: 'live' as const })),
          );
        }),
        refused,
        "its own account in the other book, beside another's",
      );
      await assert.rejects(
        db.transaction().execute(async (trx) => {
          const own = await probeAccount(trx, 'probe own beside crossed');
          await post(
            trx,
            [own, sandbox].map((account_id) => ({ entry_id: entry, account_id, book: 'live' as const })),
          );
        }),
        refused,
        "another's account in the other book, beside its own",
      );
      assert.deepEqual(await fingerprint(env.deps), before, 'nothing was written');
    });

    test("an account another transaction wrote is still locked when the posting's entry is its own: its delete waits, then is refused", async () => {
      const db = env.deps.db;
      const account = await probeAccount(db, 'probe mixed');
      const { waited, outcome } = await whileHeld(
        env.deps.db,
        async (trx) => post(trx, [{ entry_id: await newEntry(trx), account_id: account, book: 'live' }]),
        () => db.deleteFrom('ledger_accounts').where('id', '=', account).execute(),
      );
      assert.equal(waited, true, 'the delete waits for the posting to commit');
      await assert.rejects(outcome, refused, 'then sees the posting and is refused');
    });

    test('the rule is the triggers of migration 025, not a foreign key checked per posting', async () => {
      const db = env.deps.db;
      const triggers = await sql<{ tgname: string }>`select tgname from pg_trigger where tgrelid in ('postings'::regclass, 'ledger_accounts'::regclass, 'journal_entries'::regclass)
        and not tgisinternal order by tgname`.execute(db);
      assert.deepEqual(
        triggers.rows.map((t) => t.tgname),
        // (journal_entries_wait, which named each new entry among the waiting, was dropped by migration 063.)
        ['journal_entries_posted_rows_kept', 'ledger_accounts_posted_rows_kept', 'postings_in_their_books_on_insert', 'postings_in_their_books_on_update'],
      );
      const keys = await sql<{ conname: string }>`select conname from pg_constraint where conrelid = 'postings'::regclass and contype = 'f'`.execute(db);
      assert.deepEqual(keys.rows, [], 'no per-row foreign keys left on postings');
      // Their lookups probe an index whatever the plan a session cached when the tables were small
      // (a bulk load after it once scanned all of journal_entries for every entry it named).
      const settings = await sql<{ proname: string; proconfig: string[] | null }>`select proname, proconfig from pg_proc
        where proname in ('almoner_postings_in_their_books', 'almoner_posted_rows_kept') and pronamespace = current_schema()::regnamespace order by proname`.execute(db);
      // And they name Almoner's tables whatever the search_path of the session that writes.
      const [session] = (await sql<{ path: string; schema: string }>`select current_setting('search_path') as path, current_schema() as schema`.execute(db)).rows;
      assert(session !== undefined);
      const { path, schema } = session;
      assert.deepEqual(
        settings.rows.map((f) => [f.proname, f.proconfig]),
        [
          ['almoner_posted_rows_kept', ['enable_seqscan=off', `search_path=${path}`]],
          ['almoner_postings_in_their_books', ['enable_seqscan=off', `search_path=${path}`]],
        ],
      );
      await db.connection().execute(async (c) => {
        await sql`set search_path = pg_catalog`.execute(c);
        try {
          await assert.rejects(
            sql.raw(`insert into ${schema}.postings (entry_id, account_id, amount_cents, book) values (${entry}, ${sandbox}, 0, 'live')`).execute(c),
            refused,
            'still refused from a session whose search_path does not name the tables',
          );
        } finally {
          await sql.raw(`set search_path = ${path}`).execute(c);
        }
      });
    });
  });
}
