// Races: the owner's cancel against an operator's approval, two operators
// paying the same batch, and the scheduler run by two processes at once.
// Exactly one wins each time; nothing is paid or made twice.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { engines, openEnv, makeUser, fund, makeNonProfit, call, assertLedgerBalanced, runCli, type TestEnv, type TestUser } from './harness.ts';
import { applyDonationEvent, applyDonationEventToMany } from '../src/modules/donations/index.ts';
import { createSchedule, runScheduler } from '../src/modules/scheduled/scheduled.service.ts';
import { AppError } from '../src/shared/errors.ts';
import { createAdminToken } from '../src/modules/admin/index.ts';

/** `almoner scheduler run` in a process of its own; returns how many donations it made. */
async function schedulerProcess(env: TestEnv, date: string): Promise<number> {
  const { stdout, stderr } = await runCli(['scheduler', 'run', '--date', date], env.platform.deps.config.databaseUrl);
  const made = /Made (\d+) donation/.exec(stdout);
  assert.ok(made, `${stdout}${stderr}`);
  return Number(made[1]);
}

for (const { name: engine } of engines()) {
  describe(`races on ${engine}`, () => {
    let env: TestEnv;
    let user: TestUser;

    before(async () => {
      env = await openEnv(engine);
      await makeNonProfit(env.deps, { ein: '261544963', name: 'Vermont Foodbank' });
      user = await makeUser(env.deps);
      await fund(env.deps, user, 1_000_000);
    });
    after(async () => env.close());

    const donate = async () => (await call(env.app, 'POST', '/v1/donations', { key: user.key, body: { amount: 10, ein: '261544963' } })).body.id as number;

    test('users created at once with one name each get a slug of their own (a unique violation is never a 500)', async () => {
      const token = (await createAdminToken(env.deps, 'races', 'test')).token;
      const answers = await Promise.all(
        Array.from({ length: 8 }, () => call(env.app, 'POST', '/admin/v1/users', { headers: { authorization: `Bearer ${token}` }, body: { name: 'Same Name Race' } })),
      );
      assert.deepEqual(
        answers.map((a) => a.status),
        Array.from({ length: 8 }, () => 201),
        JSON.stringify(answers.map((a) => a.body)),
      );
      const slugs = answers.map((a) => String((a.body.user as { slug?: string } | undefined)?.slug ?? a.body.slug));
      assert.equal(new Set(slugs).size, 8, `distinct slugs: ${slugs.join(', ')}`);
      assert.ok(
        slugs.every((slug) => /^same-name-race(-\d+)?$/.test(slug)),
        slugs.join(', '),
      );
    });

    test('owner cancel against operator approve: exactly one wins, every time', async () => {
      const outcomes = { cancelled: 0, approved: 0 };
      for (let i = 0; i < 25; i++) {
        const id = await donate();
        const [cancel, approve] = await Promise.allSettled([
          call(env.app, 'DELETE', `/v1/donations/${id}`, { key: user.key }),
          applyDonationEvent(env.deps, 'live', id, 'approve', { actor: 'test' }),
        ]);
        assert.equal(cancel.status, 'fulfilled');
        const cancelled = cancel.status === 'fulfilled' && cancel.value.status === 200;
        const approved = approve.status === 'fulfilled';
        assert.notEqual(cancelled, approved, `donation ${id}: exactly one of cancel and approve succeeds`);
        if (cancelled) {
          assert.ok(approve.status === 'rejected' && approve.reason instanceof AppError && approve.reason.code === 'invalid_transition');
          outcomes.cancelled += 1;
        } else {
          assert.equal(cancel.status === 'fulfilled' && cancel.value.body.code, 'donation_not_cancellable');
          outcomes.approved += 1;
        }
        const status = (await call(env.app, 'GET', `/v1/donations/${id}`, { key: user.key })).body.status;
        assert.equal(status, cancelled ? 'not_completed' : 'approved');
      }
      assert.equal(outcomes.cancelled + outcomes.approved, 25);
      await assertLedgerBalanced(env.deps);
    });

    test('two operators paying the same batch: each donation is paid once', async () => {
      const ids: number[] = [];
      for (let i = 0; i < 20; i++) {
        const id = await donate();
        await applyDonationEvent(env.deps, 'live', id, 'approve', { actor: 'test' });
        ids.push(id);
      }
      const [a, b] = await Promise.all([
        applyDonationEventToMany(env.deps, 'live', ids, 'pay', { actor: 'operator a' }),
        applyDonationEventToMany(env.deps, 'live', [...ids].reverse(), 'pay', { actor: 'operator b' }),
      ]);
      assert.deepEqual(
        [...a.done, ...b.done].sort((x, y) => x - y),
        ids,
        'every donation paid by exactly one operator',
      );
      assert.equal(a.skipped.length + b.skipped.length, 20);
      const payments = await env.deps.db.selectFrom('journal_entries').select('donation_id').where('memo', '=', 'donation pay').where('donation_id', 'in', ids).execute();
      assert.equal(payments.length, 20, 'one payment entry per donation');
      await assertLedgerBalanced(env.deps);
    });

    test('the scheduler run by two processes at once makes each date once', async () => {
      const schedules = [];
      for (let i = 0; i < 5; i++) {
        schedules.push(await createSchedule(env.deps, user.caller, { ein: '261544963', amount_cents: 1000, frequency: 'Weekly', next_date: '2030-01-01' }));
      }
      const runs = await Promise.all([schedulerProcess(env, '2030-03-01'), schedulerProcess(env, '2030-03-01')]);
      // 2030-01-01 to 2030-02-26, weekly: 9 dates for each of 5 schedules, between the two processes.
      assert.equal(
        runs.reduce((sum, n) => sum + n, 0),
        45,
        `made ${runs.join(' + ')}`,
      );
      const made = await env.deps.db
        .selectFrom('donations')
        .select(['scheduled_donation_id', 'scheduled_for'])
        .where(
          'scheduled_donation_id',
          'in',
          schedules.map((s) => s.id),
        )
        .execute();
      assert.equal(made.length, 45);
      assert.equal(new Set(made.map((d) => `${d.scheduled_donation_id}@${d.scheduled_for}`)).size, 45, 'no date made twice');
      assert.deepEqual(await runScheduler(env.deps, '2030-03-01'), { created: 0 });
      await assertLedgerBalanced(env.deps);
    });

    test('a scheduler stopped half-way and run again makes each date once', async () => {
      await env.deps.db.updateTable('scheduled_donations').set({ status: 'cancelled' }).execute(); // only this test's schedule is due
      const s = await createSchedule(env.deps, user.caller, { ein: '261544963', amount_cents: 1000, frequency: 'Monthly', next_date: '2031-01-31' });
      // A run cut short (as by a restart) after 2 of the 6 dates due, then full runs.
      const first = await runScheduler(env.deps, '2031-06-30', 2);
      assert.ok(first.created >= 2 && first.created < 6, `the cut run made ${first.created}`);
      const rest = await runScheduler(env.deps, '2031-06-30');
      assert.equal(first.created + rest.created, 6);
      assert.deepEqual(await runScheduler(env.deps, '2031-06-30'), { created: 0 });
      const made = await env.deps.db.selectFrom('donations').select('scheduled_for').where('scheduled_donation_id', '=', s.id).orderBy('scheduled_for').execute();
      assert.deepEqual(
        made.map((d) => d.scheduled_for),
        ['2031-01-31', '2031-02-28', '2031-03-31', '2031-04-30', '2031-05-31', '2031-06-30'],
      );
    });
  });
}
