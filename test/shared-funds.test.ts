// Shared funds (docs/rules.md §20) on both engines: a family of three over a
// month. Olivia (organizer) invites Adam (advisor) and Tess (family); Tess's
// donations are requests: one approved, one declined, one raced by an approve
// and a decline (one wins), one lapsing after 30 days, one withdrawn when she
// is removed. Roles hold on every route; the sandbox twins follow the
// membership; Olivia's death runs her plan after a second operator approves
// it. Bad inputs change nothing. `almoner check` holds throughout.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { engines, openEnv, makeNonProfit, fund, call, fingerprint, runCli, confirmAddressOf, TestClock, type TestEnv } from './harness.ts';
import { signUp } from '../src/modules/accounts/index.ts';
import { createKeyForOwner } from '../src/modules/users/index.ts';
import { createAdminToken } from '../src/modules/admin/index.ts';
import { runCheck } from '../src/modules/check/index.ts';
import { expireRequests } from '../src/modules/donations/index.ts';
import { forgetUser } from '../src/modules/privacy/index.ts';

const EIN_A = '530196605';
const EIN_B = '131623829';
const DAY = 86_400_000;

for (const engine of engines()) {
  describe(`shared funds (${engine.name})`, () => {
    let env: TestEnv;
    const clock = new TestClock('2026-11-02T12:00:00Z');
    const people: Record<string, { user_id: number; fund_id: number; key: string; test: string; email: string }> = {};
    let first: string;
    let second: string;
    const api = (who: string, method: string, url: string, body?: unknown) =>
      call(env.app, method, `/v1${url}`, { key: people[who]?.key ?? who, ...(body === undefined ? {} : { body }) });
    const admin = (token: string, method: string, url: string, body?: unknown) =>
      call(env.app, method, `/admin/v1${url}`, { headers: { authorization: `Bearer ${token}` }, ...(body === undefined ? {} : { body }) });
    const mailTo = async (email: string) => env.deps.db.selectFrom('mail_outbox').select(['kind', 'subject', 'text']).where('recipient', '=', email).orderBy('id').execute();
    const checked = async () => {
      assert.deepEqual(
        (await runCheck(env.deps)).flatMap((c) => c.failures),
        [],
      );
    };
    const join = async (who: string, inviter: string, role: string) => {
      const invited = await api(inviter, 'POST', '/fund/members', { email: people[who]?.email, role });
      assert.equal(invited.status, 201, JSON.stringify(invited.body));
      const mail = (await mailTo(people[who]?.email as string)).at(-1);
      const token = /\/join\/([A-Za-z0-9_-]+)/.exec(mail?.text ?? '')?.[1];
      assert.ok(token !== undefined, 'the invitation mails a link');
      const { acceptInvitation } = await import('../src/modules/members/api.ts');
      await acceptInvitation(env.deps, people[who]?.user_id as number, token);
      return invited.body.id as number;
    };

    before(async () => {
      env = await openEnv(engine.name, { schedulerIntervalMs: 0, notifyIntervalMs: 0, sandboxTickMs: 0 }, { clock });
      first = (await createAdminToken(env.deps, 'first operator', 'test')).token;
      second = (await createAdminToken(env.deps, 'second operator', 'test')).token;
      await makeNonProfit(env.deps, { ein: EIN_A, name: 'American Red Cross' });
      await makeNonProfit(env.deps, { ein: EIN_B, name: 'Doctors Without Borders' });
      for (const [who, name] of [
        ['olivia', 'Olivia Family'],
        ['adam', 'Adam Family'],
        ['tess', 'Tess Family'],
        ['out', 'Outsider'],
      ] as const) {
        const email = `${who}@example.org`;
        const opened = await signUp(env.deps, { name, email, password: 'correct horse battery' });
        await confirmAddressOf(env.deps, opened.user_id, email);
        const key = await createKeyForOwner(env.deps, opened.user_id, 'story', 'live');
        const test = await createKeyForOwner(env.deps, opened.user_id, 'story', 'test');
        const fundId = (await env.deps.db.selectFrom('funds').select('id').where('user_id', '=', opened.user_id).executeTakeFirstOrThrow()).id;
        people[who] = { user_id: opened.user_id, fund_id: fundId, key: key.key, test: test.key, email };
      }
      await fund(env.deps, people.olivia as { user_id: number; fund_id: number }, 100_000);
    });
    after(async () => env?.close());

    test('invitations: the advisor and the teenager join with their own accounts and act on the family fund', async () => {
      const adamMember = await join('adam', 'olivia', 'advisor');
      await join('tess', 'olivia', 'family');
      const members = await api('tess', 'GET', '/fund/members');
      assert.equal(members.status, 200);
      assert.deepEqual(
        members.body.items.map((m: { role: string; status: string; user: { id: number } }) => [m.role, m.status, m.user.id]),
        [
          ['organizer', 'active', people.olivia?.user_id],
          ['advisor', 'active', people.adam?.user_id],
          ['family', 'active', people.tess?.user_id],
        ],
      );
      // Every users/me route acts on the fund they joined: its balance, its profile with its members.
      assert.equal((await api('tess', 'GET', '/users/me/balance')).body.available_balance, 1000);
      const me = await api('adam', 'GET', '/users/me');
      assert.equal(me.body.current_fund.id, people.olivia?.fund_id);
      assert.equal(me.body.current_fund.users.length, 3);
      const funds = await api('adam', 'GET', '/users/me/funds');
      assert.deepEqual(
        funds.body.items.map((f: { id: number; current: boolean; role: string }) => [f.id, f.current, f.role]),
        [
          [people.adam?.fund_id, false, 'organizer'],
          [people.olivia?.fund_id, true, 'advisor'],
        ],
      );
      // Adam switches to his own fund and back (PATCH /v1/users/me).
      const own = await api('adam', 'PATCH', '/users/me', { current_fund_id: people.adam?.fund_id });
      assert.equal(own.status, 200);
      assert.equal(own.body.current_fund.id, people.adam?.fund_id);
      assert.equal((await api('adam', 'GET', '/users/me/balance')).body.available_balance, 0);
      assert.equal((await api('adam', 'PATCH', '/users/me', { current_fund_id: people.olivia?.fund_id })).status, 200);
      assert.equal(adamMember > 0, true);
      await checked();
    });

    test('bad input: oneself, twice, a member, a role that does not exist, a fund not theirs; nothing changes', async () => {
      const before = await fingerprint(env.deps);
      const cases: Array<[string, string, string, unknown, number, string]> = [
        ['olivia', 'POST', '/fund/members', { email: 'OLIVIA@example.org', role: 'family' }, 422, 'member_self'],
        ['olivia', 'POST', '/fund/members', { email: 'adam@example.org', role: 'family' }, 409, 'member_exists'],
        ['olivia', 'POST', '/fund/members', { email: 'x@example.org', role: 'cousin' }, 422, 'validation_failed'],
        ['olivia', 'POST', '/fund/members', { email: 'not an address', role: 'family' }, 422, 'validation_failed'],
        ['olivia', 'PATCH', '/users/me', { current_fund_id: people.out?.fund_id }, 404, 'fund_not_found'],
        ['tess', 'POST', '/fund/members', { email: 'friend@example.org', role: 'family' }, 403, 'role_forbidden'],
        ['adam', 'POST', '/fund/members', { email: 'friend@example.org', role: 'family' }, 403, 'role_forbidden'],
        ['tess', 'POST', '/gifts', { name: 'Friend', amount: 20 }, 403, 'role_forbidden'],
        ['tess', 'PUT', '/users/me/allocation', { portfolio_id: null, invest_share: 0 }, 403, 'role_forbidden'],
        ['adam', 'PUT', '/fund/successor_plan', { successors: [] }, 403, 'role_forbidden'],
        [
          'olivia',
          'PUT',
          '/fund/successor_plan',
          {
            successors: [
              { ein: EIN_A, share_percent: 60 },
              { ein: EIN_B, share_percent: 30 },
            ],
          },
          422,
          'plan_invalid',
        ],
        [
          'olivia',
          'PUT',
          '/fund/successor_plan',
          {
            successors: [
              { ein: EIN_A, share_percent: 60 },
              { ein: EIN_A, share_percent: 40 },
            ],
          },
          422,
          'plan_invalid',
        ],
      ];
      for (const [who, method, url, body, status, code] of cases) {
        const answer = await api(who, method, url, body);
        assert.equal(answer.status, status, `${who} ${method} ${url} ${JSON.stringify(answer.body)}`);
        assert.equal(answer.body.code, code, `${who} ${method} ${url}`);
      }
      // Twice: the second invitation to a waiting address is refused.
      assert.equal((await api('olivia', 'POST', '/fund/members', { email: 'cousin@example.org', role: 'family' })).status, 201);
      const mid = await fingerprint(env.deps);
      const twice = await api('olivia', 'POST', '/fund/members', { email: 'Cousin@Example.org', role: 'advisor' });
      assert.deepEqual([twice.status, twice.body.code], [409, 'invitation_exists']);
      assert.deepEqual(await fingerprint(env.deps), mid);
      const cousin = (await api('olivia', 'GET', '/fund/members')).body.items.find((m: { email: string | null }) => m.email === 'cousin@example.org');
      assert.equal((await api('olivia', 'DELETE', `/fund/members/${cousin.id}`)).status, 200);
      assert.notDeepEqual(before, await fingerprint(env.deps));
    });

    test('requests: approved (held), declined (with a reason), both sides mailed; a race of approve and decline has one winner', async () => {
      const asked = await api('tess', 'POST', '/donations', { amount: 25, ein: EIN_A, note: 'for the flood' });
      assert.equal(asked.status, 201, JSON.stringify(asked.body));
      assert.equal(asked.body.status, 'requested');
      assert.equal((await api('tess', 'GET', '/users/me/balance')).body.available_balance, 1000, 'no money held for a request');
      assert.ok((await mailTo('olivia@example.org')).some((m) => m.kind === 'donation_requested'));
      assert.ok((await mailTo('adam@example.org')).some((m) => m.kind === 'donation_requested'));
      // The teenager cannot approve her own request.
      assert.equal((await api('tess', 'POST', `/donations/${asked.body.id}/approve`)).body.code, 'role_forbidden');
      const approved = await api('adam', 'POST', `/donations/${asked.body.id}/approve`);
      assert.equal(approved.status, 200, JSON.stringify(approved.body));
      assert.equal(approved.body.status, 'scheduled');
      assert.equal((await api('olivia', 'GET', '/users/me/balance')).body.available_balance, 975);
      assert.ok((await mailTo('tess@example.org')).some((m) => m.kind === 'request_approved'));
      const again = await api('olivia', 'POST', `/donations/${asked.body.id}/approve`);
      assert.deepEqual([again.status, again.body.code], [409, 'donation_not_requested']);

      const second = await api('tess', 'POST', '/donations', { amount: 40, ein: EIN_B });
      const declined = await api('olivia', 'POST', `/donations/${second.body.id}/decline`, { reason: 'we gave there this year' });
      assert.equal(declined.body.status, 'rejected');
      const mail = (await mailTo('tess@example.org')).find((m) => m.kind === 'request_declined');
      assert.match(mail?.text ?? '', /we gave there this year/);
      assert.equal((await api('olivia', 'POST', `/donations/${second.body.id}/decline`, { reason: '' })).status, 422);

      const raced = await api('tess', 'POST', '/donations', { amount: 30, ein: EIN_A });
      const [a, d] = await Promise.all([
        api('adam', 'POST', `/donations/${raced.body.id}/approve`),
        api('olivia', 'POST', `/donations/${raced.body.id}/decline`, { reason: 'no' }),
      ]);
      assert.deepEqual([a.status, d.status].sort(), [200, 409]);
      const after = (await api('olivia', 'GET', `/donations/${raced.body.id}`)).body;
      assert.equal(after.status, a.status === 200 ? 'scheduled' : 'rejected');
      // Who did what: the requester on every request, in the CSV export too.
      const csv = await call(env.app, 'GET', '/v1/donations', { key: people.olivia?.key as string, headers: { accept: 'text/csv' } });
      assert.match(String(csv.body), /Tess Family/);
      await checked();
    });

    test('a request lapses after 30 days; a removed member’s waiting request is withdrawn; the sandbox twins follow', async () => {
      const lapsing = await api('tess', 'POST', '/donations', { amount: 15, ein: EIN_A });
      clock.advance(31 * DAY);
      assert.equal(await expireRequests(env.deps), 1);
      assert.equal((await api('olivia', 'GET', `/donations/${lapsing.body.id}`)).body.status, 'not_completed');
      const lapsed = await api('olivia', 'POST', `/donations/${lapsing.body.id}/approve`);
      assert.deepEqual([lapsed.status, lapsed.body.code], [409, 'donation_not_requested']);

      // The sandbox: Tess's test key acts on Olivia's twin's fund, as family.
      const sandboxAsk = await api(people.tess?.test as string, 'POST', '/donations', { amount: 12, ein: EIN_A });
      assert.equal(sandboxAsk.body.status, 'requested', JSON.stringify(sandboxAsk.body));
      assert.equal((await api(people.olivia?.test as string, 'GET', '/fund/members')).body.items.length, 3);

      const waiting = await api('tess', 'POST', '/donations', { amount: 18, ein: EIN_B });
      const tess = (await api('olivia', 'GET', '/fund/members')).body.items.find((m: { role: string }) => m.role === 'family');
      assert.equal((await api('adam', 'DELETE', `/fund/members/${tess.id}`)).body.code, 'role_forbidden', 'an advisor removes no one');
      assert.equal((await api('olivia', 'DELETE', `/fund/members/${tess.id}`)).status, 200);
      assert.equal((await api('olivia', 'GET', `/donations/${waiting.body.id}`)).body.status, 'not_completed');
      // Tess acts on her own fund again, at once (cached keys too); so does her twin.
      assert.equal((await api('tess', 'GET', '/users/me')).body.current_fund.id, people.tess?.fund_id);
      assert.equal((await api(people.olivia?.test as string, 'GET', '/fund/members')).body.items.length, 2);
      // The last organizer can neither leave nor be demoted.
      const olivia = (await api('olivia', 'GET', '/fund/members')).body.items.find((m: { role: string }) => m.role === 'organizer');
      assert.deepEqual((await api('olivia', 'DELETE', `/fund/members/${olivia.id}`)).body.code, 'last_organizer');
      assert.deepEqual((await api('olivia', 'PATCH', `/fund/members/${olivia.id}`, { role: 'advisor' })).body.code, 'last_organizer');
      await checked();
    });

    test("the organizer's death: recorded, refused to the same operator, approved by a second; the plan runs", async () => {
      const plan = await api('olivia', 'PUT', '/fund/successor_plan', {
        successors: [{ email: 'adam@example.org' }, { ein: EIN_A, share_percent: 70 }, { ein: EIN_B, share_percent: 30 }],
      });
      assert.equal(plan.status, 200, JSON.stringify(plan.body));
      const before = (await api('olivia', 'GET', '/users/me/balance')).body.available_balance as number;
      const recorded = await admin(first, 'POST', '/deaths', { user_id: people.olivia?.user_id, document_reference: 'death certificate 2026-NY-0001' });
      assert.equal(recorded.status, 201, JSON.stringify(recorded.body));
      const same = await admin(first, 'POST', `/deaths/${recorded.body.id}/approve`);
      assert.deepEqual([same.status, same.body.code], [403, 'same_operator']);
      assert.equal((await api('olivia', 'GET', '/users/me/balance')).body.available_balance, before, 'nothing ran');
      const approved = await admin(second, 'POST', `/deaths/${recorded.body.id}/approve`);
      assert.equal(approved.status, 200, JSON.stringify(approved.body));
      const grants = approved.body.grants as Array<{ amount_cents: number }>;
      assert.deepEqual(
        grants.map((g) => g.amount_cents),
        [Math.floor(before * 70), Math.round(before * 100) - Math.floor(before * 70)],
      );
      // Adam is an organizer now, and the fund's money is held for the charities.
      const members = (await api('adam', 'GET', '/fund/members')).body.items;
      assert.deepEqual(
        members.map((m: { role: string; user: { id: number } }) => [m.role, m.user.id]),
        [['organizer', people.adam?.user_id]],
      );
      assert.equal((await api('adam', 'GET', '/users/me/balance')).body.available_balance, 0);
      assert.equal((await admin(second, 'POST', `/deaths/${recorded.body.id}/approve`)).body.code, 'death_decided');
      const audit = await env.deps.db.selectFrom('audit_log').select(['action', 'actor']).where('action', 'like', 'death.%').orderBy('id').execute();
      assert.deepEqual(
        audit.map((a) => a.action),
        ['death.record', 'death.approve'],
      );
      await checked();
    });

    test('the CLI: deaths recorded by one operator, refused to them, approved by another', async () => {
      const cli = (operator: string, ...args: string[]) => runCli(args, env.platform.deps.config.databaseUrl, { ALMONER_OPERATOR: operator });
      const tess = people.tess?.user_id as number;
      const usage = await cli('ana', 'deaths', 'record', '--user', String(tess));
      assert.equal(usage.code, 2, usage.stderr);
      const recorded = await cli('ana', 'deaths', 'record', '--user', String(tess), '--document', 'certificate 77');
      assert.equal(recorded.code, 0, recorded.stderr);
      const id = /Death (\d+)/.exec(recorded.stdout)?.[1] as string;
      assert.match((await cli('ana', 'deaths', 'list', '--status', 'recorded')).stdout, /certificate 77/);
      const same = await cli('ana', 'deaths', 'approve', id);
      assert.equal(same.code, 1);
      assert.match(same.stderr, /second operator/);
      const approved = await cli('ben', 'deaths', 'approve', id);
      assert.equal(approved.code, 0, approved.stderr);
      assert.match(approved.stdout, /successor plan ran: 0 organizer/);
      await checked();
    });

    test('a user an older release made (no membership, no fund chosen) acts on their own fund as its organizer', async () => {
      const { makeUser } = await import('./harness.ts');
      const old = await makeUser(env.deps, { name: 'Older Release' });
      await env.deps.db.deleteFrom('member_roles').where('user_id', '=', old.user_id).execute();
      await env.deps.db.deleteFrom('fund_members').where('user_id', '=', old.user_id).execute();
      await env.deps.db.updateTable('users').set({ current_fund_id: null }).where('id', '=', old.user_id).execute();
      const { bumpAuthEpoch } = await import('../src/modules/keys/index.ts');
      await env.deps.db.transaction().execute((trx) => bumpAuthEpoch(trx));
      const me = await api(old.key, 'GET', '/users/me');
      assert.equal(me.status, 200, JSON.stringify(me.body));
      assert.equal(me.body.current_fund.id, old.fund_id);
      assert.equal((await api(old.key, 'GET', '/fund/successor_plan')).status, 200);
      await checked();
    });

    test('forgetting a member ends their memberships', async () => {
      const joined = await join('out', 'adam', 'family');
      assert.ok(joined > 0);
      await forgetUser(env.deps, people.out?.user_id as number, 'test');
      const members = (await api('adam', 'GET', '/fund/members')).body.items;
      assert.equal(
        members.some((m: { id: number }) => m.id === joined),
        false,
      );
      await checked();
    });
  });
}
