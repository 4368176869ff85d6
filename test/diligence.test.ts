// The sponsor's due diligence (docs/rules.md §16) on both engines: the three
// lists imported from files in their published formats, every organisation
// screened, donations refused with each reason's code, close name matches put
// to an operator, and the charity page naming the lists and their dates.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { engines, openEnv, makeUser, fund, makeNonProfit, call, fingerprint, type TestEnv, type TestUser } from './harness.ts';
import { decideReview, pendingReviews, readListFile, recordList, screenDirectory } from '../src/modules/diligence/index.ts';
import { AppError } from '../src/shared/errors.ts';
import { createAdminToken } from '../src/modules/admin/index.ts';
import { NO_IRS_DETAILS } from '../src/modules/nonprofits/nonprofits.store.ts';

const FIXTURES = new URL('./fixtures/diligence/', import.meta.url).pathname;

for (const { name: engine } of engines()) {
  describe(`due diligence on ${engine}`, () => {
    let env: TestEnv;
    let donor: TestUser;
    before(async () => {
      env = await openEnv(engine);
      donor = await makeUser(env.deps);
      await fund(env.deps, donor, 100_000);
      const orgs: Array<[string, string, string?]> = [
        ['111111111', 'Old Town Relief Society'],
        ['222222222', 'River Valley Friends'],
        ['261544963', 'Vermont Foodbank'],
        ['444444444', 'Green Mountain Family Foundation'],
        ['555555555', 'Lake Champlain Supporting Trust'],
        ['777777777', 'Holy Land Relief Fund, Inc.'],
        ['888888888', 'Friends of the Holy Land Relief Fund'],
        ['999999991', 'Ridgeline Private Foundation', '04'],
        ['999999992', 'Valley Support Org', '24'],
      ];
      for (const [ein, name, foundation] of orgs) await makeNonProfit(env.deps, { ein, name, ...NO_IRS_DETAILS, foundation: foundation ?? '15' });
    });
    after(async () => env.close());

    const donate = (ein: string) => call(env.app, 'POST', '/v1/donations', { key: donor.key, body: { ein, amount: 10 } });

    test('FOUNDATION codes 04 and 24 refuse donations before any list is imported', async () => {
      const before = await fingerprint(env.deps);
      for (const [ein, code] of [
        ['999999991', 'non_profit_private_foundation'],
        ['999999992', 'non_profit_supporting_organization'],
      ]) {
        const res = await donate(ein as string);
        assert.equal(res.status, 422, ein);
        assert.equal(res.body.code, code);
      }
      assert.deepEqual(await fingerprint(env.deps), before, 'a refused donation writes nothing');
      assert.equal((await donate('111111111')).status, 201, 'the others may still receive, until the lists say otherwise');
    });

    test('a malformed list file is refused whole, naming its lines, and nothing changes', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'lists-'));
      const bad = join(dir, 'revocations.txt');
      writeFileSync(bad, '111111111|A||||||US|03|15-MAY-2010|08-JUN-2011|\r\n12345|B||||||US|03|15-MAY-2010|08-JUN-2011|\r\n');
      const before = await fingerprint(env.deps);
      assert.throws(
        () => readListFile('revocations', bad),
        (error: unknown) => error instanceof AppError && error.code === 'list_malformed' && error.errors?.[0]?.field === 'line 2',
      );
      writeFileSync(join(dir, 'sdn.csv'), '36,"NAME",-0-\n');
      assert.throws(
        () => readListFile('sdn', join(dir, 'sdn.csv')),
        (error: unknown) => error instanceof AppError && error.code === 'list_malformed',
      );
      await assert.rejects(
        recordList(env.deps, readListFile('pub78', join(FIXTURES, 'pub78.txt')), '2026-13-45', 'test'),
        (error: unknown) => error instanceof AppError && error.code === 'validation_failed',
      );
      assert.deepEqual(await fingerprint(env.deps), before);
    });

    test('the lists imported, the directory screened: each refusal with its code, a close match for review', async () => {
      for (const [kind, file] of [
        ['revocations', 'revocations.txt'],
        ['pub78', 'pub78.txt'],
        ['sdn', 'sdn.csv'],
      ] as const) {
        await recordList(env.deps, readListFile(kind, join(FIXTURES, file)), '2026-11-20', 'operator:test');
      }
      const screening = await screenDirectory(env.deps);
      assert.deepEqual(screening.changed, { revoked: 1, private_foundation: 2, supporting_organization: 2, sanctioned: 1, review: 1 });
      assert.equal(screening.new_reviews, 1);
      const before = await fingerprint(env.deps);
      for (const [ein, code] of [
        ['111111111', 'non_profit_revoked'],
        ['444444444', 'non_profit_private_foundation'],
        ['555555555', 'non_profit_supporting_organization'],
        ['777777777', 'non_profit_sanctioned'],
      ]) {
        const res = await donate(ein as string);
        assert.equal(res.status, 422, ein);
        assert.equal(res.body.code, code, ein);
      }
      assert.deepEqual(await fingerprint(env.deps), before);
      // Reinstated after its revocation; on no list; a close match waiting for review: all take donations.
      for (const ein of ['222222222', '261544963', '888888888']) assert.equal((await donate(ein)).status, 201, ein);
      const again = await screenDirectory(env.deps);
      assert.deepEqual([again.changed, again.new_reviews], [{}, 0], 'screening again finds nothing new');
    });

    test('an operator decides a close match once: confirmed, the organisation is refused from then on', async () => {
      const [review] = await pendingReviews(env.deps);
      assert.ok(review !== undefined);
      assert.deepEqual([review.ein, review.listed_name, review.reason], ['888888888', 'HOLY LAND RELIEF FUND', 'the listed name is part of its name']);
      const decided = await decideReview(env.deps, Number(review.id), 'confirmed', 'the same organisation, renamed', 'operator:test');
      assert.deepEqual(decided.changed, { sanctioned: 1 });
      assert.equal((await donate('888888888')).body.code, 'non_profit_sanctioned');
      await assert.rejects(
        decideReview(env.deps, Number(review.id), 'cleared', 'changed my mind', 'operator:other'),
        (error: unknown) => error instanceof AppError && error.code === 'review_decided',
      );
      await assert.rejects(decideReview(env.deps, 999_999, 'cleared', 'x', 'operator:test'), (error: unknown) => error instanceof AppError && error.code === 'review_not_found');
      const audit = await env.deps.db.selectFrom('audit_log').select(['action', 'actor']).where('object_type', 'in', ['sanction_review', 'diligence_list']).execute();
      assert.equal(audit.filter((a) => a.action === 'diligence_list.imported').length, 3);
      assert.deepEqual(
        audit.filter((a) => a.action.startsWith('sanction_review')),
        [{ action: 'sanction_review.confirmed', actor: 'operator:test' }],
      );
    });

    test('the operator API lists the lists in force and the reviews, and decides one once', async () => {
      await makeNonProfit(env.deps, { ein: '888888889', name: 'Holy Land Relief Fund Friends' });
      await screenDirectory(env.deps);
      const operator = (await createAdminToken(env.deps, 'diligence test', 'test')).token;
      const admin = (method: string, url: string, body?: unknown) =>
        call(env.app, method, `/admin/v1${url}`, { headers: { authorization: `Bearer ${operator}` }, ...(body === undefined ? {} : { body }) });
      const lists = await admin('GET', '/diligence_lists');
      assert.deepEqual(lists.body.items.map((l: { kind: string; as_of: string }) => [l.kind, l.as_of]).sort(), [
        ['pub78', '2026-11-20'],
        ['revocations', '2026-11-20'],
        ['sdn', '2026-11-20'],
      ]);
      const pending = await admin('GET', '/sanction_reviews');
      assert.deepEqual(
        pending.body.items.map((r: { ein: string }) => r.ein),
        ['888888889'],
      );
      const id = pending.body.items[0].id;
      const before = await fingerprint(env.deps);
      const unsaid = await admin('POST', `/sanction_reviews/${id}/clear`, {});
      assert.deepEqual([unsaid.status, unsaid.body.code], [422, 'validation_failed'], 'a decision says why');
      assert.equal((await call(env.app, 'POST', `/admin/v1/sanction_reviews/${id}/clear`, { body: { note: 'x' } })).status, 401, 'operators only');
      assert.deepEqual(await fingerprint(env.deps), before);
      const cleared = await admin('POST', `/sanction_reviews/${id}/clear`, { note: 'a parish group in Barre, not the listed party' });
      assert.equal(cleared.status, 200);
      assert.equal((await admin('POST', `/sanction_reviews/${id}/confirm`, { note: 'again' })).body.code, 'review_decided');
      assert.equal((await donate('888888889')).status, 201, 'cleared: it takes donations, and will be paid');
      assert.deepEqual((await admin('GET', '/sanction_reviews')).body.items, []);
    });

    test('the charity page names the lists and their dates, and what they found', async () => {
      const page = async (ein: string) => {
        const first = await env.app.inject({ method: 'GET', url: `/charities/${ein}` });
        return (await env.app.inject({ method: 'GET', url: String(first.headers.location) })).body;
      };
      const clear = await page('261544963');
      for (const listed of [
        'IRS automatic revocation of exemption list, as of 2026-11-20',
        'IRS Publication 78 data, as of 2026-11-20',
        'OFAC Specially Designated Nationals (SDN) list, as of 2026-11-20',
      ]) {
        assert.ok(clear.includes(listed), listed);
      }
      assert.match(clear, /Nothing on these lists stops a grant to it/);
      assert.match(await page('111111111'), /Grants to it are refused: the IRS revoked its tax exemption/);
      assert.match(await page('111111111'), /This organisation cannot receive donations/);
    });
  });
}
