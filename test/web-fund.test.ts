// Shared funds on the web (docs/rules.md §20): an organizer invites from the
// fund page; the invited person signs up from the mailed link and accepts;
// as family, their donation is a request the organizer approves or declines
// from the fund page; the switcher chooses the fund one acts on. Bad forms
// say why and change nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { confirmInBrowser, describeEachEngine, fingerprint, fund, makeNonProfit } from './harness.ts';
import { WebClient, textOf } from './web-client.ts';

describeEachEngine('a shared fund on the web', (env) => {
  test('invite, sign up from the link, accept, request, approve, decline, switch funds', async () => {
    const { app, deps } = env();
    await makeNonProfit(deps, { ein: '530196605', name: 'American Red Cross' });
    const olivia = new WebClient(app);
    await olivia.get('/signup');
    await olivia.post('/signup', { name: 'Olivia Organizer', email: 'olivia@example.org', password: 'correct horse battery' });
    const oliviaIds = await deps.db
      .selectFrom('accounts as a')
      .innerJoin('funds as f', 'f.user_id', 'a.user_id')
      .select(['a.user_id', 'f.id as fund_id'])
      .where('a.email', '=', 'olivia@example.org')
      .executeTakeFirstOrThrow();
    await fund(deps, oliviaIds, 500_00);

    const page = await olivia.get('/fund');
    assert.match(textOf(page.body), /You are an Organizer of this fund/);
    const before = await fingerprint(deps);
    const bad = await olivia.post('/fund/members', { email: 'not an address', role: 'family' });
    assert.equal(bad.status, 422);
    assert.match(textOf(bad.body), /not an e-mail address/);
    assert.equal((await olivia.post('/fund/members', { email: 'olivia@example.org', role: 'family' })).status, 422, 'not oneself');
    assert.deepEqual(await fingerprint(deps), before);
    const invited = await olivia.post('/fund/members', { email: 'tess@example.org', role: 'family' });
    assert.deepEqual([invited.status, invited.location], [303, '/fund?done=member_invited']);
    const mail = await deps.db.selectFrom('mail_outbox').select('text').where('recipient', '=', 'tess@example.org').executeTakeFirstOrThrow();
    assert.match(mail.text, /to join .+ as a family member: a member who sees the fund/);
    const link = /\/join\/[A-Za-z0-9_-]+/.exec(mail.text)?.[0] as string;
    assert.ok(link !== undefined);

    // Tess opens the link signed out, signs up from it, comes back and accepts.
    const tess = new WebClient(app);
    const join = await tess.get(link);
    assert.match(textOf(join.body), /Olivia Organizer invites you/);
    // Its sign-up link starts the form with the invited address.
    const signUpLink = (/href="(\/signup\?[^"]+)"/.exec(join.body)?.[1] ?? '').replaceAll('&amp;', '&');
    assert.match(signUpLink, /email=tess%40example\.org/);
    const form = await tess.get(signUpLink);
    assert.match(form.body, /<input[^>]*name="email"[^>]*value="tess@example\.org"|value="tess@example\.org"[^>]*name="email"/);
    assert.doesNotMatch(form.body, /id="form-errors"/, 'no error shown for a prefilled form');
    const signedUp = await tess.post('/signup', { name: 'Tess Teen', email: 'tess@example.org', password: 'correct horse battery', next: link });
    assert.deepEqual([signedUp.status, signedUp.location], [303, link]);
    await tess.get(link);
    // Not before the address is proven (rules §15): the link mailed at sign-up, then the invitation.
    const early = await tess.post(link, {});
    assert.deepEqual([early.status, /data-problem="([a-z_]+)"/.exec(early.body)?.[1]], [403, 'address_unconfirmed']);
    await confirmInBrowser(deps, tess, 'tess@example.org');
    await tess.get(link);
    const accepted = await tess.post(link, {});
    assert.deepEqual([accepted.status, accepted.location], [303, '/fund?done=invitation_accepted']);
    assert.equal((await tess.get(link)).status, 404, 'a link works once');
    const tessFund = await tess.get('/fund');
    assert.match(textOf(tessFund.body), /Family member/);
    const hers = await tess.get('/dashboard');
    assert.match(textOf(hers.body), /\$500/);
    // The page follows her role: whose fund it is, that she asks, and a Request button, not Donate.
    assert.match(hers.body, /<h2 id="balances">Olivia Organizer&#39;s Fund<\/h2>|<h2 id="balances">Olivia Organizer's Fund<\/h2>/);
    assert.match(textOf(hers.body), /You are a Family member of this fund: your donations are requests an organizer or advisor approves/);
    assert.match(hers.body, /<button type="submit">Request<\/button>/);
    assert.doesNotMatch(hers.body, /<button type="submit">Donate<\/button>/);
    assert.doesNotMatch(textOf((await olivia.get('/dashboard')).body), /You are a/, "the organizer's own page is hers");

    // Her donation is a request; Olivia declines one, approves the other.
    await tess.get('/dashboard');
    const asked = await tess.post('/dashboard/donations', { ein: '530196605', amount: '25' });
    assert.equal(asked.status, 303, textOf(asked.body));
    await tess.get('/dashboard');
    await tess.post('/dashboard/donations', { ein: '530196605', amount: '40' });
    const waiting = await deps.db.selectFrom('donations').select(['id', 'amount_cents']).where('status', '=', 'requested').orderBy('id').execute();
    assert.deepEqual(
      waiting.map((d) => d.amount_cents),
      [25_00, 40_00],
    );
    const cancels = (body: string) => (body.match(/action="\/dashboard\/donations\/\d+\/cancel"/g) ?? []).length;
    assert.equal(cancels((await tess.get('/dashboard')).body), 2, 'she may withdraw her own requests');
    const oliviaFund = await olivia.get('/fund');
    assert.match(textOf(oliviaFund.body), /Tess Teen asks to give \$25/);
    assert.equal((await olivia.post(`/fund/requests/${waiting[1]?.id}/decline`, { reason: '' })).status, 422, 'a decline says why');
    assert.equal((await olivia.post(`/fund/requests/${waiting[1]?.id}/decline`, { reason: 'Not this month' })).location, '/fund?done=request_declined');
    assert.equal((await olivia.post(`/fund/requests/${waiting[0]?.id}/approve`, {})).location, '/fund?done=request_approved');
    const statuses = await deps.db.selectFrom('donations').select('status').orderBy('id').execute();
    assert.deepEqual(
      statuses.map((d) => d.status),
      ['scheduled', 'rejected'],
    );
    // Who did what: the request's asker, and who approved it.
    assert.match(textOf((await olivia.get('/fund')).body), /Donation to American Red Cross \$25\.00 Scheduled Tess Teen, approved by Olivia Organizer/);
    // Once decided, nothing on her page offers a cancel the fund's rules would refuse her; Olivia may cancel.
    assert.equal(cancels((await tess.get('/dashboard')).body), 0);
    assert.equal(cancels((await olivia.get('/dashboard')).body), 1, 'the organizer cancels the scheduled donation');
    // Tess cannot decide: no buttons, and a post is refused.
    const refused = await tess.post(`/fund/requests/${waiting[0]?.id}/approve`, {});
    assert.deepEqual([refused.status, /data-problem="([a-z_]+)"/.exec(refused.body)?.[1]], [403, 'role_forbidden'], "as the API refuses a family member's decision");

    // Tess switches to her own fund and back.
    const tessOwn = await deps.db
      .selectFrom('accounts as a')
      .innerJoin('funds as f', 'f.user_id', 'a.user_id')
      .select('f.id')
      .where('a.email', '=', 'tess@example.org')
      .executeTakeFirstOrThrow();
    await tess.get('/fund');
    assert.equal((await tess.post('/fund/current', { fund_id: String(tessOwn.id) })).location, '/dashboard?done=fund_chosen');
    assert.match(textOf((await tess.get('/fund')).body), /Organizer/);
    assert.equal((await tess.post('/fund/current', { fund_id: '999999' })).status, 404);
  });
});
