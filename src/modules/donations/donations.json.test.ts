// The own list's JSON writer (donations.json.ts) against the route's response
// schema serializer: the same text, byte for byte, on random pages; and the
// route answering it on both engines.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import fastJson from 'fast-json-stringify';
import { call, describeEachEngine, fund, makeNonProfit, makeUser, openEnv, type TestEnv } from '../../../test/harness.ts';
import { DonationNonProfit } from '../nonprofits/nonprofits.schema.ts';
import type { NonProfitCard } from '../nonprofits/index.ts';
import { OwnDonation, OwnDonationPage } from './donations.schema.ts';
import { DONATION_STATUSES, SHARES, VISIBILITIES } from './donations.ts';
import type { DonationRecord, Owner, PageRow } from './donations.store.ts';
import { ownListForm } from './donations.view.ts';
import { ownDonationPageJson } from './donations.json.ts';
import { listOwnDonations } from './donations.lists.ts';
import { KeptDonationRows } from './donations.rows.ts';

/** What Fastify writes for GET /v1/donations's 200 from its schema (fast-json-stringify, with the app's shared schemas). */
const schemaSerializer: (page: unknown) => string = fastJson(OwnDonationPage as fastJson.AnySchema, { schema: { OwnDonation, DonationNonProfit } as fastJson.Options['schema'] });

/** Strings with what JSON must escape: quotes, backslashes, controls, separators, lone surrogates, astral characters. */
const anyText = fc.oneof(
  fc.string({ unit: fc.constantFrom('a', 'Z', ' ', '"', '\\', '/', '\n', '\u0000', '\u001f', '\u007f', '\u2028', '\ud800', '\udfff', 'é', '😀') }),
  fc.string({ unit: 'binary' }),
  fc.string({ minLength: 40, maxLength: 200 }),
);
const id = fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER });
const isoDate = fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString());

const card = fc.record<NonProfitCard>({
  ein: anyText,
  name: anyText,
  website: anyText,
  city: anyText,
  state: anyText,
  logo: anyText,
  public_path: anyText,
  public_url: anyText,
  cause_id: fc.integer({ min: 1, max: 100 }),
});
const owner = fc.record<Owner>({ name: anyText, city: anyText, avatar_url: fc.option(anyText, { nil: null }), slug: anyText });

/** A page as withOwners makes it: a few users and funds, each user's one Owner object and each fund's one name shared by its rows. */
const page = fc
  .record({
    cards: fc.array(card, { minLength: 1, maxLength: 4 }),
    owners: fc.array(fc.tuple(id, owner), { minLength: 1, maxLength: 3 }),
    funds: fc.array(fc.tuple(id, anyText), { minLength: 1, maxLength: 3 }),
    rows: fc.array(
      fc.record({
        id,
        amount_cents: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
        status: fc.constantFrom(...DONATION_STATUSES),
        note: fc.option(anyText, { nil: null }),
        visibility: fc.constantFrom(...VISIBILITIES),
        scheduled_donation_id: fc.option(id, { nil: null }),
        created_at: isoDate,
        mailed_at: fc.option(isoDate, { nil: null }),
        cancelled_at: fc.option(isoDate, { nil: null }),
        share: fc.constantFrom(...SHARES),
        designation: fc.option(anyText, { nil: null }),
        dedication: fc.option(anyText, { nil: null }),
        external_id: fc.option(anyText, { nil: null }),
        metadata: fc.option(fc.dictionary(fc.string({ minLength: 1, maxLength: 40 }), anyText, { maxKeys: 5, minKeys: 1 }), { nil: null }),
        fundraiser_id: fc.option(fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), { nil: null }),
        revision: fc.nat(),
        card: fc.nat(),
        owner: fc.nat(),
        fund: fc.nat(),
      }),
      { maxLength: 30 },
    ),
    meta: fc.record({ count: fc.nat(), page: fc.integer({ min: 1, max: 1_000_000 }), last: fc.integer({ min: 1, max: 1_000_000 }) }),
  })
  .map(({ cards, owners, funds, rows, meta }) => {
    const cardMap = new Map(cards.map((c, i) => [i + 1, Object.freeze(c)]));
    const records: DonationRecord[] = rows.map((r) => {
      const [user_id, o] = owners[r.owner % owners.length] as [number, Owner];
      const [fund_id, fund_name] = funds[r.fund % funds.length] as [number, string];
      return {
        id: r.id,
        user_id,
        actor_id: user_id,
        fund_id,
        non_profit_id: (r.card % cards.length) + 1,
        amount_cents: r.amount_cents,
        status: r.status,
        note: r.note,
        share: r.share,
        designation: r.designation,
        dedication: r.dedication,
        external_id: r.external_id,
        metadata: r.metadata === null ? null : JSON.stringify(r.metadata),
        fundraiser_id: r.fundraiser_id,
        visibility: r.visibility,
        scheduled_donation_id: r.scheduled_donation_id,
        created_at: r.created_at,
        mailed_at: r.mailed_at,
        cancelled_at: r.cancelled_at,
        revision: r.revision,
        fund_name,
        owner: o,
      };
    });
    return { cards: cardMap, records, meta };
  });

describe('the own list as JSON bytes', () => {
  let env: TestEnv;
  before(async () => {
    env = await openEnv('sqlite');
  });
  after(async () => {
    await env.close();
  });

  test("is the response schema's serialization of ownListForm's page, byte for byte (random pages, each written three times: cards, then the rows' own text, from the node's memory)", () => {
    fc.assert(
      fc.property(page, ({ cards, records, meta }) => {
        // A node's kept rows of its own (a row id means one row only within one database).
        const deps = { ...env.deps, runtime: { ...env.deps.runtime, donationRows: new KeptDonationRows<PageRow>(1_000) } };
        const expected = schemaSerializer({ items: records.map((r) => ownListForm(deps, cards, r)), meta });
        assert.equal(ownDonationPageJson(deps, cards, records, meta).toString(), expected);
        for (const r of records) deps.runtime.donationRows.keep({ ...r }, deps.runtime.donationRows.since());
        const made = ownDonationPageJson(deps, cards, records, meta);
        assert.equal(made.toString(), expected, 'the rows kept, their bytes made and kept, and the page');
        const again = ownDonationPageJson(deps, cards, records, meta);
        assert.equal(again.toString(), expected, "the rows' kept bytes, or the page kept from them");
        // (A random page may name one id at two revisions, which no list shows: then a row is not kept, nor the page.)
        if (records.length > 0 && new Set(records.map((r) => r.id)).size === records.length) assert.equal(again, made, 'the same page again is the page kept');
        const last = records.at(-1);
        if (last !== undefined) assert.ok(deps.runtime.donationRows.get(last.id, last.revision)?.bytes !== undefined, 'the bytes were kept with the row');
      }),
      { numRuns: 500 },
    );
  });

  test("a kept row's bytes are written again once its card, its fund's name or its owner is not what they were written with, and a kept page is not given for a page that differs", () => {
    fc.assert(
      fc.property(page, fc.constantFrom('card', 'fund', 'owner', 'meta'), card, owner, anyText, ({ cards, records, meta }, changed, otherCard, otherOwner, otherFundName) => {
        const deps = { ...env.deps, runtime: { ...env.deps.runtime, donationRows: new KeptDonationRows<PageRow>(1_000) } };
        for (const r of records) deps.runtime.donationRows.keep({ ...r }, deps.runtime.donationRows.since());
        ownDonationPageJson(deps, cards, records, meta); // the rows' bytes made and kept, and the page kept
        // The same rows at the same revisions, naming one thing that changed: a new card (the directory's records epoch moved), a renamed fund or an owner who changed.
        const cardsAfter = changed === 'card' ? new Map(cards).set(1, Object.freeze({ ...otherCard })) : cards;
        const recordsAfter = records.map((r) => ({ ...r, ...(changed === 'fund' ? { fund_name: otherFundName } : {}), ...(changed === 'owner' ? { owner: otherOwner } : {}) }));
        // Or the same rows under another count (a donation made since): the page kept from them is not the answer.
        const metaAfter = changed === 'meta' ? { ...meta, count: meta.count + 1 } : meta;
        const expected = schemaSerializer({ items: recordsAfter.map((r) => ownListForm(deps, cardsAfter, r)), meta: metaAfter });
        assert.equal(ownDonationPageJson(deps, cardsAfter, recordsAfter, metaAfter).toString(), expected);
      }),
      { numRuns: 300 },
    );
  });

  test('a page naming a non-profit without its card, or an unsafe integer, is refused rather than written wrong', () => {
    const [sample] = fc.sample(
      page.filter((p) => p.records.length > 0),
      { numRuns: 1, seed: 22 },
    );
    assert.ok(sample !== undefined);
    const [first] = sample.records;
    assert.ok(first !== undefined);
    assert.throws(() => ownDonationPageJson(env.deps, new Map(), sample.records, sample.meta), /cardsFor read every non-profit/);
    assert.throws(() => ownDonationPageJson(env.deps, sample.cards, [{ ...first, id: 2 ** 53 }], sample.meta), /safe integer/);
  });
});

describeEachEngine('GET /v1/donations answers the JSON writer', (env) => {
  test("its body is the schema serializer's text of the same page, with notes, without, and past the last page", async () => {
    const { deps, app } = env();
    await makeNonProfit(deps, { ein: '310000022', name: 'Quoted "Shelter" \\ North' });
    const donor = await makeUser(deps, { name: 'Zoë "Z" O\'Neil', city: 'Montréal' });
    await fund(deps, donor, 100_000);
    for (const [i, note] of ['first', undefined, 'line\nbreak \u2028 "quoted"', undefined].entries()) {
      const made = await call(app, 'POST', '/v1/donations', { key: donor.key, body: { amount: 10 + i, ein: '310000022', ...(note === undefined ? {} : { note }) } });
      assert.equal(made.status, 201);
    }
    for (const [pageNo, perPage] of [
      [1, 25],
      [2, 3],
      [9, 25],
    ] as const) {
      const res = await app.inject({ method: 'GET', url: `/v1/donations?page=${pageNo}&per_page=${perPage}`, headers: { 'x-api-key': donor.key } });
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
      const objects = await listOwnDonations(deps, donor.caller, { page: pageNo, per_page: perPage });
      assert.equal(res.body, schemaSerializer(objects));
      assert.equal(JSON.parse(res.body).items.length, pageNo === 1 ? 4 : pageNo === 2 ? 1 : 0);
    }
  });
});
