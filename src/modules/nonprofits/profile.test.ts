// What a charity's page says of the IRS codes (profile.ts), rule by rule.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { activityOf, charityProfile, ineligibleReason, postalLines, type IrsDetails } from './profile.ts';

const base: IrsDetails = {
  street: 'PO BOX 12',
  city: 'Burlington',
  state: 'VT',
  zip: '05401',
  ruling: '199512',
  subsection: '03',
  foundation: '16',
  affiliation: '3',
  organization: '1',
  filing_req: '01',
  deductibility: '1',
  status: '01',
  ntee_code: 'K31',
  revenue_amt: 10,
  income_amt: 20,
  asset_amt: 30,
  tax_period: '202312',
  removed: false,
};

test('an activity is its NTEE title, or its major group for a code the table lacks; none for no code', () => {
  assert.equal(activityOf('K31'), 'Food Banks & Pantries (K31)');
  assert.equal(activityOf('k31z'), 'Food Banks & Pantries (K31Z)');
  assert.equal(activityOf('K9Q'), 'Food, Agriculture & Nutrition (K9Q)');
  assert.equal(activityOf(null), undefined);
  assert.equal(activityOf('9'), undefined);
});

test('the address, ruling year, kind and size of an ordinary public charity', () => {
  const p = charityProfile(base);
  assert.deepEqual(p.address, ['PO Box 12', 'Burlington, VT 05401']);
  assert.deepEqual([p.ruling_year, p.kind, p.group, p.ineligible], ['1995', 'Public charity', undefined, undefined]);
  assert.deepEqual(p.size, { revenue: 10, assets: 30, income: 20, year: '2023' });
  assert.equal(charityProfile({ ...base, revenue_amt: 0, income_amt: 0, asset_amt: 0 }).size, undefined, 'an e-Postcard has no figures');
  assert.equal(charityProfile({ ...base, tax_period: '' }).size, undefined, 'no return');
  assert.equal(charityProfile({ ...base, ruling: '000000' }).ruling_year, undefined);
});

test('the kinds: private foundation, trust, church, another subsection; a group member', () => {
  assert.equal(charityProfile({ ...base, foundation: '04' }).kind, 'Private foundation');
  assert.equal(charityProfile({ ...base, organization: '6' }).kind, 'Charitable trust');
  assert.equal(charityProfile({ ...base, foundation: '10' }).kind, 'Church');
  assert.equal(charityProfile({ ...base, subsection: '07' }).kind, 'Exempt organisation, section 501(c)(7): not a charity');
  assert.match(charityProfile({ ...base, affiliation: '9' }).group ?? '', /a chapter, branch or congregation/);
});

test('why an organisation cannot receive donations, one reason a cause', () => {
  const why = (d: Partial<IrsDetails>) => ineligibleReason({ ...base, ...d });
  assert.equal(why({}), undefined);
  assert.equal(why({ deductibility: '4' }), undefined, 'deductible by treaty');
  assert.match(why({ removed: true }) ?? '', /no longer lists it/);
  assert.match(why({ deductibility: '2' }) ?? '', /not tax-deductible/);
  assert.match(why({ deductibility: '0' }) ?? '', /does not list contributions to it as tax-deductible/);
  assert.match(why({ status: '12' }) ?? '', /charitable trust/);
  assert.match(why({ status: '25' }) ?? '', /terminating its private foundation status/);
  assert.match(why({ status: '99' }) ?? '', /not .* in good standing/);
});

test("a foreign organisation's country is its last address line; its 00000-0000 ZIP is not shown", () => {
  const p = charityProfile({ ...base, street: 'KAWASAKI KANAGAWA 216-0033', city: 'Japan', state: '', zip: '00000-0000' });
  assert.deepEqual(p.address, ['Kawasaki Kanagawa 216-0033', 'Japan']);
});

test('postalLines: one format for pages, letters and checks; a foreign organisation without the IRS 00000-0000', () => {
  assert.deepEqual(postalLines({ street: '1 MAIN ST', city: 'BURLINGTON', state: 'VT', zip: '05401-1234' }), ['1 Main St', 'BURLINGTON, VT 05401-1234']);
  assert.deepEqual(postalLines({ street: 'PO BOX 12', city: 'TORONTO ONTARIO CANADA', state: '', zip: '00000-0000' }), ['PO Box 12', 'TORONTO ONTARIO CANADA']);
  assert.deepEqual(postalLines({ street: '', city: 'Hanover', state: 'NH', zip: '' }), ['Hanover, NH']);
});
