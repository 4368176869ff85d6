// Use cases for gifts: create (with a hold on the giver's fund), read, list.
import type { Deps } from '../../deps.ts';
import type { GiftsTable } from '../../db/schema.ts';
import { assert, assertSafeInteger } from '../../shared/assert.ts';
import { notFound, unprocessable } from '../../shared/errors.ts';
import { centsToDollars } from '../../shared/money.ts';
import { offsetOf, toPage, type PageRequest } from '../../shared/page.ts';
import { lockFundAccounts, postEntry } from '../ledger/index.ts';
import { recordEvent } from '../events/index.ts';
import type { Caller } from '../keys/index.ts';
import { GIFT_MIN_CENTS } from './gifts.ts';

export interface NewGift {
  name: string;
  amount_cents: number;
  message?: string;
  email?: string;
}

type GiftRow = Omit<GiftsTable, 'id'> & { id: number };

function giftForm(deps: Deps, g: GiftRow) {
  return {
    name: g.name,
    amount: centsToDollars(g.amount_cents),
    message: g.message,
    code: g.code,
    ein: g.ein,
    seen: g.seen === 1,
    status: g.status,
    updated_at: g.updated_at,
    created_at: g.created_at,
    claimed: g.claimed === 1,
    url: `${deps.config.publicUrl}/gifts/${g.code}`,
  };
}

/**
 * Creates a gift and holds its amount (available -> reserved).
 * Throws: unprocessable (insufficient_funds).
 */
export async function createGift(deps: Deps, caller: Caller, input: NewGift) {
  assertSafeInteger(input.amount_cents, 'gift amount');
  assert(input.amount_cents >= GIFT_MIN_CENTS, 'the route enforces the minimum');
  const code = deps.ids.uuid();
  await deps.db.transaction().execute(async (trx) => {
    const accounts = await lockFundAccounts(trx, deps.engine, caller.fund_id);
    if (accounts.balances.available_cents < input.amount_cents) {
      throw unprocessable('insufficient_funds', 'the fund does not have enough available money for this gift', [
        { field: 'amount', code: 'insufficient_funds', message: 'is more than the available balance' },
      ]);
    }
    const at = deps.clock.now().toISOString();
    const gift = await trx.insertInto('gifts').values({
      code,
      user_id: caller.user_id,
      fund_id: caller.fund_id,
      name: input.name,
      email: input.email ?? null,
      amount_cents: input.amount_cents,
      message: input.message ?? null,
      ein: null,
      seen: 0,
      status: 'new',
      claimed: 0,
      created_at: at,
      updated_at: at,
    }).returning('id').executeTakeFirstOrThrow();
    await postEntry(trx, { memo: 'gift created: hold', gift_id: gift.id }, [
      { from_account_id: accounts.ids.available, to_account_id: accounts.ids.reserved, amount_cents: input.amount_cents },
    ], at);
    await recordEvent(trx, { user_id: caller.user_id, type: 'gift.created', object_type: 'gift', object_id: gift.id, data: { status: 'new' }, at });
  });
  return getGift(deps, caller, code);
}

/** One of the caller's gifts by code. Throws gift_not_found (also for others' gifts). */
export async function getGift(deps: Deps, caller: Caller, code: string) {
  const gift = await deps.db.selectFrom('gifts').selectAll().where('code', '=', code.toLowerCase()).executeTakeFirst();
  if (gift === undefined || gift.user_id !== caller.user_id) throw notFound('gift_not_found', `no gift ${code}`);
  return giftForm(deps, gift);
}

export async function listGifts(deps: Deps, caller: Caller, page: PageRequest) {
  const [counted, rows] = await Promise.all([
    deps.db.selectFrom('gifts').where('user_id', '=', caller.user_id).select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow(),
    deps.db.selectFrom('gifts').selectAll().where('user_id', '=', caller.user_id)
      .orderBy('created_at', 'desc').orderBy('id', 'desc').limit(page.per_page).offset(offsetOf(page)).execute(),
  ]);
  return toPage(rows.map((g) => giftForm(deps, g)), Number(counted.count), page);
}
