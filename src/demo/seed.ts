// Demo data: real non-profits (an IRS BMF extract shipped beside this file),
// a few users (one private), funds with contributions, donations in every
// status, gifts, follows and causes. Idempotent: a database that already
// has users is left alone.
import { fileURLToPath } from 'node:url';
import type { Deps } from '../deps.ts';
import { assert } from '../shared/assert.ts';
import { createKey } from '../modules/keys/index.ts';
import { createUser, follow, hasUsers } from '../modules/users/index.ts';
import { addAccount } from '../modules/accounts/index.ts';
import { einsOfFile, importBmf, sourceOf } from '../modules/nonprofits/index.ts';
import { advanceContribution, declareContribution, recordArrivalAudited, recordContribution } from '../modules/contributions/index.ts';
import { applyDonationEvent, cancelDonation, createDonation, type DonationEvent } from '../modules/donations/index.ts';
import { acceptGift, claimGift, createGift, denyGift } from '../modules/gifts/index.ts';
import { createPortfolio, importPrices, movePortfolio, runValuation, setAllocation } from '../modules/portfolio/index.ts';
import { demoPrices } from './prices.ts';
import { createSchedule, runScheduler } from '../modules/scheduled/index.ts';
import { createAdminToken } from '../modules/admin/index.ts';
import type { Caller } from '../shared/caller.ts';

const NONPROFITS_CSV = fileURLToPath(new URL('./nonprofits.csv', import.meta.url));
const ZIPS_CSV = fileURLToPath(new URL('./zips.csv', import.meta.url));

/** The demo's organisations go through the same importer as the national directory. */
export async function loadDemoNonProfits(deps: Deps): Promise<{ eligible: string[]; ineligible: string[] }> {
  const summary = await importBmf(deps, [NONPROFITS_CSV], { zipCentroids: ZIPS_CSV });
  assert(summary.rejected === 0, 'every demo organisation is valid');
  return einsOfFile(deps, sourceOf(NONPROFITS_CSV));
}

/** Every demo user signs in to the web app as <first name>@example.org with this password. Demo data only. */
export const DEMO_PASSWORD = 'give-generously';

export interface DemoResult {
  created: boolean;
  key?: string;
  user_id?: number;
  operator_token?: string;
}

/** Seeds the demo platform and returns a fresh live key for its first user. */
export async function seedDemo(deps: Deps): Promise<DemoResult> {
  if (await hasUsers(deps)) return { created: false };
  const { eligible, ineligible } = await loadDemoNonProfits(deps);
  const ein = (i: number) => eligible[i % eligible.length] as string;

  const users = await deps.db.transaction().execute(async (trx) => ({
    ada: await createUser(
      deps,
      { name: 'Ada Lovelace', slug: 'ada', city: 'London', fund_name: 'The Analytical Fund', fund_summary: 'Science, education and the arts.', cause_ids: [2, 19, 1] },
      trx,
    ),
    grace: await createUser(
      deps,
      { name: 'Grace Hopper', slug: 'grace', city: 'Arlington', fund_name: 'Hopper Family Giving', fund_summary: 'Education and veterans.', cause_ids: [2, 14] },
      trx,
    ),
    alan: await createUser(deps, { name: 'Alan Turing', slug: 'alan', city: 'Manchester', visible: false, fund_name: 'Private Fund', cause_ids: [5, 16] }, trx),
    katherine: await createUser(
      deps,
      { name: 'Katherine Johnson', slug: 'katherine', city: 'Hampton', fund_name: 'Johnson Giving Fund', fund_summary: 'Youth and STEM.', cause_ids: [13, 19] },
      trx,
    ),
  }));
  const caller = (u: { user_id: number; fund_id: number }): Caller => ({
    user_id: u.user_id,
    fund_id: u.fund_id,
    actor_id: u.user_id,
    role: 'organizer',
    key_id: 0,
    mode: 'live',
    book: 'live',
    user_status: 'active',
    last_used_at: null,
  });

  const contribute = (
    u: { user_id: number; fund_id: number },
    type: Parameters<typeof recordContribution>[1]['type'],
    units: string,
    valuation: string,
    currency: string,
    status: Parameters<typeof recordContribution>[1]['status'],
  ) => recordContribution(deps, { user_id: u.user_id, fund_id: u.fund_id, type, units, valuation, currency, frequency: 'OneTime', status });

  await contribute(users.ada, 'bank_account_scheduled_deposit', '5000', '1', 'USD', 'success');
  await contribute(users.ada, 'stock_payment', '10', '187.42', 'AAPL', 'success');
  await contribute(users.ada, 'crypto_payment', '0.05', '64250.12345678', 'BTC', 'pending');
  await contribute(users.ada, 'wire_payment', '2500', '1', 'USD', 'waiting_for_funds');
  await advanceContribution(deps, 'live', await contribute(users.ada, 'check_payment', '300', '1', 'USD', 'pending'), 'failed', 'demo'); // a bounced check
  await contribute(users.grace, 'credit_card_scheduled_deposit', '1200', '1', 'USD', 'success');
  await contribute(users.alan, 'wire_daf_transfer', '800', '1', 'USD', 'success');
  await contribute(users.katherine, 'company_payment', '400', '1', 'USD', 'success');
  // Declared by the donors themselves (rules §7): Grace's stock arrived, was valued and cleared (receipted);
  // Katherine's wire is still on its way, with its instructions and reference.
  const shares = await declareContribution(deps, caller(users.grace), { type: 'stock_payment', units: 12, symbol: 'MSFT' });
  await recordArrivalAudited(deps, 'live', shares.id, { units: '12', valuation: '415.5', valuation_source: 'NASDAQ close, the day they arrived' }, 'demo');
  await advanceContribution(deps, 'live', shares.id, 'pending', 'demo');
  await advanceContribution(deps, 'live', shares.id, 'success', 'demo');
  await declareContribution(deps, caller(users.katherine), { type: 'wire_payment', amount: 1500 });

  // Ada's donations, one in every status.
  const ada = caller(users.ada);
  const donate = async (who: Caller, i: number, amount_cents: number, extra: { note?: string; visibility?: 'public' | 'private'; private_memo?: string } = {}) =>
    (await createDonation(deps, who, { amount_cents, ein: ein(i), ...extra })).id;
  const advance = async (id: number, events: DonationEvent[]) => {
    for (const e of events) await applyDonationEvent(deps, 'live', id, e);
  };

  await donate(ada, 0, 25_000, { note: 'For the new wing.' });
  await advance(await donate(ada, 1, 10_000, { note: 'Keep up the good work.' }), ['approve']);
  await advance(await donate(ada, 2, 5_000), ['reject']);
  await advance(await donate(ada, 3, 15_000, { note: 'Annual gift.' }), ['approve', 'pay']);
  await advance(await donate(ada, 4, 2_000, { private_memo: 'Matched by employer' }), ['approve', 'mail_check']);
  await advance(await donate(ada, 5, 3_000), ['approve', 'mail_check', 'cash_check']);
  await cancelDonation(deps, ada, await donate(ada, 6, 1_500, { visibility: 'private' }));
  await donate(ada, 7, 1_000_000, { note: 'When the wire arrives.' }); // waiting_for_funds
  await donate(ada, 8, 7_500, { visibility: 'private', note: 'Anonymous support.' });

  await donate(caller(users.grace), 9, 20_000, { note: 'In memory of the Harvard Mark I.' });
  await advance(await donate(caller(users.grace), 10, 12_500), ['approve', 'pay']);
  await donate(caller(users.alan), 11, 5_000, { note: 'Hidden profile, public donation.' });
  await donate(caller(users.katherine), 12, 4_000);

  await createGift(deps, ada, { name: 'Charles Babbage', amount_cents: 10_000, message: 'Happy birthday! Pick a cause you love.' });
  await createGift(deps, ada, { name: 'Mary Somerville', amount_cents: 1_800, email: 'mary@example.org' });
  await createGift(deps, caller(users.grace), { name: 'Howard Aiken', amount_cents: 5_000 });
  // Gifts in every state: Grace's to Ada, accepted; to Katherine, claimed to a non-profit; Ada's to Grace, denied.
  await acceptGift(deps, ada, (await createGift(deps, caller(users.grace), { name: 'Ada Lovelace', amount_cents: 2_500 })).code);
  await claimGift(deps, caller(users.katherine), (await createGift(deps, caller(users.grace), { name: 'Katherine Johnson', amount_cents: 3_000 })).code, ein(13));
  await denyGift(deps, caller(users.grace), (await createGift(deps, ada, { name: 'Grace Hopper', amount_cents: 2_000 })).code);
  await movePortfolio(deps, users.ada.fund_id, 'invest', 50_000, 'demo');
  await createSchedule(deps, ada, { ein: ein(14), amount_cents: 2_500, frequency: 'Monthly', next_date: deps.clock.now().toISOString().slice(0, 10), note: 'Every month.' });
  await runScheduler(deps);

  // Investing (rules §19): three portfolios, a year of daily prices, a valuation each week. Ada's
  // money invested by hand moves into Balanced; Grace and Katherine invest a new contribution.
  const portfolios = {
    conservative: await createPortfolio(
      deps,
      {
        name: 'Conservative',
        description: 'Mostly bonds: small moves, small growth.',
        risk_level: 'low',
        annual_fee_bps: 10,
        holdings: [
          { symbol: 'BND', weight: 50 },
          { symbol: 'BNDX', weight: 30 },
          { symbol: 'VTI', weight: 20 },
        ],
      },
      'demo',
    ),
    balanced: await createPortfolio(
      deps,
      {
        name: 'Balanced',
        description: 'Half stocks, half bonds.',
        risk_level: 'medium',
        annual_fee_bps: 15,
        holdings: [
          { symbol: 'VTI', weight: 35 },
          { symbol: 'VXUS', weight: 15 },
          { symbol: 'BND', weight: 35 },
          { symbol: 'BNDX', weight: 15 },
        ],
      },
      'demo',
    ),
    growth: await createPortfolio(
      deps,
      {
        name: 'Growth',
        description: 'Stocks at home and abroad, and some property.',
        risk_level: 'high',
        annual_fee_bps: 20,
        holdings: [
          { symbol: 'VTI', weight: 55 },
          { symbol: 'VXUS', weight: 30 },
          { symbol: 'VNQ', weight: 15 },
        ],
      },
      'demo',
    ),
  };
  await setAllocation(deps, ada, { portfolio_id: portfolios.balanced.id, invest_share: 50 });
  await setAllocation(deps, caller(users.grace), { portfolio_id: portfolios.growth.id, invest_share: 100 });
  await setAllocation(deps, caller(users.katherine), { portfolio_id: portfolios.conservative.id, invest_share: 25 });
  await contribute(users.grace, 'wire_payment', '3000', '1', 'USD', 'success');
  await contribute(users.katherine, 'wire_payment', '2000', '1', 'USD', 'success');
  const prices = demoPrices(deps.clock.now(), 365);
  await importPrices(deps, prices, 'demo');
  const days = [...new Set(prices.map((p) => p.time))];
  for (let d = 0; d < days.length; d += 7) await runValuation(deps, days[d], 'demo');
  if ((days.length - 1) % 7 !== 0) await runValuation(deps, days[days.length - 1], 'demo');

  await follow(deps, users.ada.user_id, users.grace.user_id);
  await follow(deps, users.grace.user_id, users.ada.user_id);
  await follow(deps, users.katherine.user_id, users.ada.user_id);
  assert(ineligible.length > 0, 'the demo includes ineligible organisations');

  for (const [name, user] of Object.entries(users)) await addAccount(deps, user.user_id, `${name}@example.org`, DEMO_PASSWORD, undefined, { confirmed: true });
  const key = await createKey(deps, users.ada.user_id, 'demo', 'live');
  const operator = await createAdminToken(deps, 'demo operator', 'demo');
  return { created: true, key: key.key, user_id: users.ada.user_id, operator_token: operator.token };
}
