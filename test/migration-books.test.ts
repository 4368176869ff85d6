// Migration 013 on a database of the old shape, as a platform that ran
// before it holds one: a sandbox twin with a deposit on the shared outside
// account, a sandbox key the web made on a live user, and the review's attack
// already done (a sandbox gift accepted into a live fund). After it: the
// twin's money is in the test book with its own outside account, the keys are
// where they belong, and `almoner check` reports the crossing instead of
// passing, while the database refuses any new one.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import pino from 'pino';
import { engines, freshDatabase, testConfig } from './harness.ts';
import { openDatabase, type Db } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { openPlatform } from '../src/platform.ts';
import { formatCheck, runCheck } from '../src/modules/check/index.ts';

const AT = '2026-11-01T00:00:00.000Z';
const KINDS = ['pending_deposit', 'available', 'reserved', 'portfolio'] as const;

async function insert(db: Db, table: string, row: Record<string, unknown>): Promise<number> {
  const inserted = await (db as unknown as Db)
    .insertInto(table as 'users')
    .values(row as never)
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(inserted.id);
}

for (const { name: engine } of engines()) {
  describe(`migration 013 (two books) on ${engine}`, () => {
    test('moves the sandbox into its own book and lets almoner check report what already crossed', async () => {
      const { databaseUrl, cleanup } = await freshDatabase(engine);
      try {
        const handle = openDatabase({ url: databaseUrl });
        const db = handle.db;
        await migrate(handle, { until: '012_expect' });
        const user = (name: string, slug: string, sandboxOf: number | null) =>
          insert(db, 'users', {
            name,
            slug,
            city: '',
            visible: sandboxOf === null ? 1 : 0,
            onboarding_status: 'complete',
            status: 'active',
            created_at: AT,
            sandbox_of: sandboxOf,
          });
        const bob = await user('Bob', 'bob', null);
        const twin = await user('Bob', 'bob-sandbox', bob);
        const eve = await user('Eve', 'eve', null);
        const accounts = new Map<number, Record<string, number>>();
        const funds = new Map<number, number>();
        for (const u of [bob, twin, eve]) {
          const fund = await insert(db, 'funds', { user_id: u, name: 'Fund', summary: '', created_at: AT });
          funds.set(u, fund);
          const ids: Record<string, number> = {};
          for (const kind of KINDS) ids[kind] = await insert(db, 'ledger_accounts', { fund_id: fund, kind, balance_cents: 0 });
          accounts.set(u, ids);
        }
        const deposits = await insert(db, 'ledger_accounts', { fund_id: null, kind: 'deposits', balance_cents: 0 });
        await insert(db, 'ledger_accounts', { fund_id: null, kind: 'grants_paid', balance_cents: 0 });
        const balances = new Map<number, number>();
        const post = async (cause: Record<string, number>, moves: Array<[number, number, number]>) => {
          const entry = await insert(db, 'journal_entries', { memo: 'old', created_at: AT, ...cause });
          for (const [from, to, cents] of moves) {
            for (const [account, amount] of [
              [from, -cents],
              [to, cents],
            ] as const) {
              await insert(db, 'postings', { entry_id: entry, account_id: account, amount_cents: amount });
              balances.set(account, (balances.get(account) ?? 0) + amount);
            }
          }
          return entry;
        };
        const a = (u: number, kind: string) => (accounts.get(u) as Record<string, number>)[kind] as number;
        const contribution = (u: number, cents: number) =>
          insert(db, 'contributions', {
            user_id: u,
            fund_id: funds.get(u),
            type: 'wire_payment',
            status: 'success',
            units: String(cents / 100),
            valuation: '1',
            currency: 'USD',
            frequency: 'OneTime',
            amount_cents: cents,
            created_at: AT,
          });
        const sandboxDeposit = await contribution(twin, 100_000);
        const sandboxEntry = await post({ contribution_id: sandboxDeposit }, [[deposits, a(twin, 'available'), 100_000]]);
        await post({ contribution_id: await contribution(bob, 50_000) }, [[deposits, a(bob, 'available'), 50_000]]);
        // The attack: the twin's gift, accepted by Eve's live key.
        const gift = await insert(db, 'gifts', {
          code: '11111111-1111-4111-8111-111111111111',
          user_id: twin,
          fund_id: funds.get(twin),
          name: 'Eve',
          amount_cents: 30_000,
          status: 'accepted',
          claimed: 1,
          seen: 1,
          created_at: AT,
          updated_at: AT,
          recipient_user_id: eve,
        });
        await post({ gift_id: gift }, [[a(twin, 'available'), a(twin, 'reserved'), 30_000]]);
        const crossing = await post({ gift_id: gift }, [[a(twin, 'reserved'), a(eve, 'available'), 30_000]]);
        for (const [account, cents] of balances) await db.updateTable('ledger_accounts').set({ balance_cents: cents }).where('id', '=', account).execute();
        // Sandbox keys the web made on live users: Bob has a twin, Eve none.
        const key = (u: number, mode: string, hash: string) => insert(db, 'api_keys', { user_id: u, name: mode, key_hash: hash, last4: 'abcd', mode, created_at: AT });
        const bobsTestKey = await key(bob, 'test', 'h1');
        const evesTestKey = await key(eve, 'test', 'h2');
        const bobsLiveKey = await key(bob, 'live', 'h3');

        assert.deepEqual(await migrate(handle, { until: '013_books' }), ['013_books']);

        const bookOf = async (table: string, id: number) => String((await sql<{ book: string }>`select book from ${sql.table(table)} where id = ${id}`.execute(db)).rows[0]?.book);
        assert.deepEqual([await bookOf('users', bob), await bookOf('users', twin), await bookOf('users', eve)], ['live', 'test', 'live']);
        assert.equal(await bookOf('funds', funds.get(twin) as number), 'test');
        assert.equal(await bookOf('ledger_accounts', a(twin, 'available')), 'test');
        assert.equal(await bookOf('contributions', sandboxDeposit), 'test');
        assert.equal(await bookOf('gifts', gift), 'test');
        assert.equal(await bookOf('journal_entries', sandboxEntry), 'test');
        const outside = await sql<{
          id: number;
          kind: string;
          book: string;
          balance_cents: string;
        }>`select id, kind, book, cast(balance_cents as text) as balance_cents from ledger_accounts where fund_id is null order by id`.execute(db);
        const of = (book: string, kind: string) => outside.rows.find((r) => r.book === book && r.kind === kind);
        assert.equal(of('live', 'deposits')?.balance_cents, '-50000', 'the live deposits account holds live money only');
        assert.equal(of('test', 'deposits')?.balance_cents, '-100000', "the sandbox deposit moved to the sandbox's own");
        const sandboxPostings = await sql<{ account_id: number; book: string }>`select account_id, book from postings where entry_id = ${sandboxEntry} order by id`.execute(db);
        assert.deepEqual(
          sandboxPostings.rows.map((p) => [Number(p.account_id), p.book]),
          [
            [Number(of('test', 'deposits')?.id), 'test'],
            [a(twin, 'available'), 'test'],
          ],
        );
        const keys = await sql<{ id: number; user_id: number; revoked_at: string | null }>`select id, user_id, revoked_at from api_keys order by id`.execute(db);
        const keyOf = (id: number) => keys.rows.find((k) => Number(k.id) === id);
        assert.equal(Number(keyOf(bobsTestKey)?.user_id), twin, "Bob's sandbox key now acts for his twin");
        assert.notEqual(keyOf(evesTestKey)?.revoked_at, null, 'a sandbox key with no twin to go to is revoked');
        assert.equal(keyOf(bobsLiveKey)?.revoked_at, null);
        // The database refuses a new crossing.
        await assert.rejects(sql`insert into postings (entry_id, account_id, amount_cents, book) values (${crossing}, ${a(eve, 'available')}, 1, 'test')`.execute(db));
        await handle.close();

        const platform = await openPlatform(testConfig(databaseUrl), { log: pino({ level: 'silent' }) });
        try {
          const { ok, text } = formatCheck(await runCheck(platform.deps));
          assert.equal(ok, false, 'the crossing already made is reported, not hidden');
          assert.match(text, new RegExp(`journal entry ${crossing} \\(test\\) has a posting on account ${a(eve, 'available')} of the live book`));
          assert.match(text, /the live book's accounts sum to 30000, not 0/);
          assert.match(text, /the test book's accounts sum to -30000, not 0/);
          assert.match(text, /ok {4}every journal entry balances/);
          assert.match(text, /ok {4}every balance equals its postings/);
        } finally {
          await platform.close();
        }
      } finally {
        await cleanup();
      }
    });
  });
}
