// Every door asks the same rule (docs/rules.md §20, ADR 23), on both engines: a
// family member of someone else's fund tries, on the web, each form that moves
// the fund's money or its people, and each is refused with the code the API
// answers for the same request, nothing changed. A promoted member's own old
// request still needs someone else to decide it. A member who leaves takes
// with them the webhook endpoints they made for the fund.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { engines, openEnv, makeNonProfit, fund, call, fingerprint, assertLedgerBalanced, confirmAddressOf, type TestEnv } from './harness.ts';
import { WebClient } from './web-client.ts';
import { signUp } from '../src/modules/accounts/index.ts';
import { createKeyForOwner } from '../src/modules/users/index.ts';
import { acceptInvitation } from '../src/modules/members/api.ts';
import { runCheck } from '../src/modules/check/index.ts';
import { relayEvents } from '../src/modules/notify/index.ts';
import { createAdminToken } from '../src/modules/admin/index.ts';

const EIN = '261544963';

/** A web form and the API request that asks the same of the service. */
interface Door {
  name: string;
  web: { path: string; fields: Record<string, string> };
  api: { method: string; url: string; body?: unknown };
}

for (const { name: engine } of engines()) {
  describe(`every door asks the same rule (${engine})`, () => {
    let env: TestEnv;
    const people: Record<string, { user_id: number; fund_id: number; key: string; email: string; member_id: number }> = {};
    const api = (who: string, method: string, url: string, body?: unknown) =>
      call(env.app, method, url, { key: people[who]?.key as string, ...(body === undefined ? {} : { body }) });
    const browserOf = async (who: string) => {
      const browser = new WebClient(env.app);
      const signedIn = await browser.signIn(people[who]?.email as string);
      assert.equal(signedIn.status, 303, `${who} signs in`);
      return browser;
    };
    const problemOf = (body: string) => /data-problem="([a-z_]+)"/.exec(body)?.[1];

    before(async () => {
      env = await openEnv(engine, { schedulerIntervalMs: 0, notifyIntervalMs: 0 });
      await makeNonProfit(env.deps, { ein: EIN, name: 'Vermont Foodbank' });
      for (const who of ['organizer', 'advisor', 'family']) {
        const email = `door-${who}@example.org`;
        const opened = await signUp(env.deps, { name: `Door ${who}`, email, password: 'correct horse battery' });
        await confirmAddressOf(env.deps, opened.user_id, email);
        const key = await createKeyForOwner(env.deps, opened.user_id, 'doors', 'live');
        const fundId = (await env.deps.db.selectFrom('funds').select('id').where('user_id', '=', opened.user_id).executeTakeFirstOrThrow()).id;
        people[who] = { user_id: opened.user_id, fund_id: fundId, key: key.key, email, member_id: 0 };
      }
      await fund(env.deps, people.organizer as { user_id: number; fund_id: number }, 100_000);
      for (const role of ['advisor', 'family'] as const) {
        const person = people[role] as (typeof people)[string];
        const invited = await api('organizer', 'POST', '/v1/fund/members', { email: person.email, role });
        assert.equal(invited.status, 201, JSON.stringify(invited.body));
        const mail = await env.deps.db.selectFrom('mail_outbox').select('text').where('recipient', '=', person.email).orderBy('id', 'desc').executeTakeFirstOrThrow();
        const token = /\/join\/([A-Za-z0-9_-]+)/.exec(mail.text)?.[1];
        assert.ok(token !== undefined, 'the invitation mails a link');
        await acceptInvitation(env.deps, person.user_id, token);
        person.member_id = invited.body.id;
      }
    });
    after(async () => env?.close());

    test("a family member's eight forms are refused as the API refuses them, and nothing changes", async () => {
      // Their own request, which they may not approve.
      const request = await api('family', 'POST', '/v1/donations', { amount: 25, ein: EIN });
      assert.deepEqual([request.status, request.body.status], [201, 'requested']);
      const family = people.family as (typeof people)[string];
      const doors: Door[] = [
        {
          name: 'make themselves organizer',
          web: { path: `/fund/members/${family.member_id}/role`, fields: { role: 'organizer' } },
          api: { method: 'PATCH', url: `/v1/fund/members/${family.member_id}`, body: { role: 'organizer' } },
        },
        {
          name: 'invite someone',
          web: { path: '/fund/members', fields: { email: 'friend@example.org', role: 'organizer' } },
          api: { method: 'POST', url: '/v1/fund/members', body: { email: 'friend@example.org', role: 'organizer' } },
        },
        {
          name: 'approve their own request',
          web: { path: `/fund/requests/${request.body.id}/approve`, fields: {} },
          api: { method: 'POST', url: `/v1/donations/${request.body.id}/approve` },
        },
        {
          name: 'send a gift',
          web: { path: '/dashboard/gifts', fields: { name: 'Friend', amount: '18' } },
          api: { method: 'POST', url: '/v1/gifts', body: { name: 'Friend', amount: 18 } },
        },
        {
          name: 'set up a recurring donation',
          web: { path: '/dashboard/scheduled', fields: { ein: EIN, amount: '10', frequency: 'Monthly' } },
          api: { method: 'POST', url: '/v1/scheduled_donations', body: { ein: EIN, amount: 10, frequency: 'Monthly' } },
        },
        {
          name: 'choose how the fund invests',
          web: { path: '/invest', fields: { portfolio_id: 'cash', invest_share: '10' } },
          api: { method: 'PUT', url: '/v1/users/me/allocation', body: { portfolio_id: null, invest_share: 10 } },
        },
        {
          name: 'add a webhook endpoint that hears the fund',
          web: { path: '/settings/webhooks', fields: { url: 'https://hooks.example.org/family' } },
          api: { method: 'POST', url: '/v1/webhook_endpoints', body: { url: 'https://hooks.example.org/family' } },
        },
        {
          name: 'declare money coming in',
          web: { path: '/money', fields: { type: 'wire_payment', amount: '100' } },
          api: { method: 'POST', url: '/v1/contributions', body: { type: 'wire_payment', amount: 100 } },
        },
      ];
      const browser = await browserOf('family');
      for (const door of doors) {
        const before = await fingerprint(env.deps);
        await browser.get('/dashboard');
        const page = await browser.post(door.web.path, door.web.fields);
        const answer = await api('family', door.api.method, door.api.url, door.api.body);
        assert.deepEqual([answer.status, answer.body.code], [403, 'role_forbidden'], `${door.name}: the API refuses`);
        assert.equal(page.status, 403, `${door.name}: the web refuses (${page.status} ${page.location ?? ''})`);
        assert.equal(problemOf(page.body), answer.body.code, `${door.name}: with the API's code`);
        assert.deepEqual(await fingerprint(env.deps), before, `${door.name}: nothing changed`);
      }
      assert.equal(doors.length, 8);
      await assertLedgerBalanced(env.deps);
    });

    test('a member promoted since still needs someone else to decide their own request, at every door', async () => {
      const request = await api('family', 'POST', '/v1/donations', { amount: 30, ein: EIN });
      assert.equal(request.body.status, 'requested');
      const promoted = await api('organizer', 'PATCH', `/v1/fund/members/${people.family?.member_id}`, { role: 'advisor' });
      assert.equal(promoted.status, 200, JSON.stringify(promoted.body));
      const browser = await browserOf('family');
      await browser.get('/fund');
      const before = await fingerprint(env.deps);
      const answer = await api('family', 'POST', `/v1/donations/${request.body.id}/approve`);
      assert.deepEqual([answer.status, answer.body.code], [403, 'own_request']);
      const declined = await api('family', 'POST', `/v1/donations/${request.body.id}/decline`, { reason: 'changed my mind' });
      assert.deepEqual([declined.status, declined.body.code], [403, 'own_request']);
      const page = await browser.post(`/fund/requests/${request.body.id}/approve`, {});
      assert.deepEqual([page.status, problemOf(page.body)], [403, 'own_request']);
      assert.deepEqual(await fingerprint(env.deps), before, 'nothing changed');
      // Another advisor decides it.
      const approved = await api('advisor', 'POST', `/v1/donations/${request.body.id}/approve`);
      assert.deepEqual([approved.status, approved.body.status], [200, 'scheduled']);
      assert.equal((await api('organizer', 'PATCH', `/v1/fund/members/${people.family?.member_id}`, { role: 'family' })).status, 200);
    });

    test('a member who leaves takes the webhook endpoints they made for the fund; their key acts on their own fund', async () => {
      const made = await api('advisor', 'POST', '/v1/webhook_endpoints', { url: 'https://hooks.example.org/advisor' });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      const own = await api('organizer', 'POST', '/v1/webhook_endpoints', { url: 'https://hooks.example.org/organizer' });
      assert.equal(own.status, 201);
      const listed = async () => {
        const answer = await api('organizer', 'GET', '/v1/webhook_endpoints');
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
        return (answer.body.items as Array<{ id: number }>).map((e) => e.id).sort((a, b) => a - b);
      };
      assert.deepEqual(
        await listed(),
        [made.body.id, own.body.id].sort((a, b) => a - b),
      );
      const removed = await api('organizer', 'DELETE', `/v1/fund/members/${people.advisor?.member_id}`);
      assert.equal(removed.status, 200, JSON.stringify(removed.body));
      assert.deepEqual(await listed(), [own.body.id], "the advisor's endpoint ended with the membership; the organizer's stays");
      // The fund's next event reaches the organizer's endpoint only.
      const deliveries = async (endpoint: number) =>
        Number(
          (
            await env.deps.db
              .selectFrom('webhook_deliveries')
              .select((eb) => eb.fn.countAll().as('n'))
              .where('endpoint_id', '=', endpoint)
              .executeTakeFirstOrThrow()
          ).n,
        );
      const [advisorBefore, organizerBefore] = [await deliveries(made.body.id), await deliveries(own.body.id)];
      assert.equal((await api('organizer', 'POST', '/v1/donations', { amount: 10, ein: EIN })).status, 201);
      await relayEvents(env.deps);
      assert.equal(await deliveries(made.body.id), advisorBefore, 'no delivery to the ended endpoint');
      assert.ok((await deliveries(own.body.id)) > organizerBefore, "the organizer's endpoint hears the donation");
      // Their key acts on their own (empty) fund now: a gift from it is refused, the family fund untouched.
      const me = await api('advisor', 'GET', '/v1/users/me');
      assert.equal(me.body.current_fund.id, people.advisor?.fund_id);
      const gift = await api('advisor', 'POST', '/v1/gifts', { name: 'Friend', amount: 20 });
      assert.deepEqual([gift.status, gift.body.code], [422, 'insufficient_funds']);
      assert.deepEqual(
        (await runCheck(env.deps)).flatMap((c) => c.failures),
        [],
      );
    });

    test('a second operator is a second person: two tokens of one operator cannot approve what one recorded', async () => {
      const email = `door-holder-${engine}@example.org`;
      const opened = await signUp(env.deps, { name: 'Door Holder', email, password: 'correct horse battery' });
      const [laptop, phone, other] = [
        await createAdminToken(env.deps, 'laptop', 'test', undefined, 'Alice Ops'),
        await createAdminToken(env.deps, 'phone', 'test', undefined, 'Alice Ops'),
        await createAdminToken(env.deps, 'desk', 'test', undefined, 'Bob Ops'),
      ];
      const admin = (token: string, url: string, body?: unknown) =>
        call(env.app, 'POST', `/admin/v1${url}`, { headers: { authorization: `Bearer ${token}` }, ...(body === undefined ? {} : { body }) });
      const recorded = await admin(laptop.token, '/deaths', { user_id: opened.user_id, document_reference: 'certificate 2026-0099' });
      assert.equal(recorded.status, 201, JSON.stringify(recorded.body));
      const before = await fingerprint(env.deps);
      const same = await admin(phone.token, `/deaths/${recorded.body.id}/approve`);
      assert.deepEqual([same.status, same.body.code], [403, 'same_operator'], 'another token of the same person');
      assert.deepEqual(await fingerprint(env.deps), before, 'nothing changed');
      assert.equal((await admin(other.token, `/deaths/${recorded.body.id}/approve`)).status, 200, 'a second person approves');
      const audit = await env.deps.db
        .selectFrom('audit_log')
        .select(['action', 'actor'])
        .where('action', 'like', 'death.%')
        .where('object_id', '=', recorded.body.id)
        .orderBy('id')
        .execute();
      assert.deepEqual(
        audit.map((a) => [a.action, a.actor]),
        [
          ['death.record', 'admin:Alice Ops'],
          ['death.approve', 'admin:Bob Ops'],
        ],
        'the audit log names the person',
      );
    });
  });
}
