// Portfolios, prices and valuations (docs/rules.md §19): an operator offers
// portfolios and imports prices; a valuation sets every portfolio's unit
// price from its holdings' prices at its time, in one transaction, audited.
import { dialectOf } from '../../db/dialect.ts';
import { BOOKS } from '../../shared/book.ts';
import type { Deps } from '../../deps.ts';
import { AppError, conflict, fieldErrors, fileRefused, notFound, type FieldError } from '../../shared/errors.ts';
import { decimalText, parse8 } from '../../shared/fixed.ts';
import { recordAudit } from '../audit/index.ts';
import { checkPrices, FEE_BPS_MAX, FIRST_UNIT_PRICE, holdingsProblem, nextUnitPrice, readPriceFile, RISK_LEVELS, timeOf, type Holding, type PriceCheck } from './unit-price.ts';
import * as store from './portfolio.store.ts';
import { finishValuation, type RoundOptions } from './valuation.rounds.ts';

export interface PortfolioView {
  id: number;
  name: string;
  description: string;
  risk_level: string;
  annual_fee_bps: number;
  holdings: Holding[];
  status: string;
  /** At the last valuation; null before the first. */
  unit_price: string | null;
  valued_at: string | null;
}

function viewOf(p: store.PortfolioRow, latest: { unit_price: string; at: string } | undefined): PortfolioView {
  return {
    id: Number(p.id),
    name: p.name,
    description: p.description,
    risk_level: p.risk,
    annual_fee_bps: p.fee_bps,
    holdings: JSON.parse(p.holdings) as Holding[],
    status: p.status,
    unit_price: latest?.unit_price ?? null,
    valued_at: latest?.at ?? null,
  };
}

/** The portfolios, by id, with their last unit price: only those a donor may choose, unless `all`. */
export async function listPortfolios(deps: Deps, options: { all: boolean }): Promise<PortfolioView[]> {
  const rows = await store.listPortfolios(deps.db, !options.all);
  const latest = await store.latestUnitPrices(
    deps.db,
    rows.map((r) => Number(r.id)),
  );
  return rows.map((r) => viewOf(r, latest.get(Number(r.id))));
}

export async function getPortfolio(deps: Deps, id: number): Promise<PortfolioView> {
  const row = await store.findPortfolio(deps.db, id);
  if (row === undefined) throw notFound('portfolio_not_found', `no portfolio ${id}`);
  return viewOf(row, (await store.latestUnitPrices(deps.db, [id])).get(id));
}

/** A new portfolio (audited). Throws validation_failed, portfolio_exists. */
export async function createPortfolio(
  deps: Deps,
  input: { name: string; description: string; risk_level: string; annual_fee_bps: number; holdings: Holding[] },
  actor: string,
): Promise<PortfolioView> {
  const name = input.name.trim();
  const problems: FieldError[] = [];
  if (name === '' || name.length > 100) problems.push({ field: 'name', code: 'validation_failed', message: 'must be 1 to 100 characters' });
  if (input.description.length > 1000) problems.push({ field: 'description', code: 'validation_failed', message: 'must be at most 1000 characters' });
  if (!(RISK_LEVELS as readonly string[]).includes(input.risk_level))
    problems.push({ field: 'risk_level', code: 'validation_failed', message: `must be one of ${RISK_LEVELS.join(', ')}` });
  if (!Number.isInteger(input.annual_fee_bps) || input.annual_fee_bps < 0 || input.annual_fee_bps > FEE_BPS_MAX)
    problems.push({ field: 'annual_fee_bps', code: 'validation_failed', message: `must be a whole number of basis points from 0 to ${FEE_BPS_MAX}` });
  const holdings = input.holdings.map((h) => ({ symbol: h.symbol.trim().toUpperCase(), weight: h.weight }));
  const wrong = holdingsProblem(holdings);
  if (wrong !== undefined) problems.push({ field: 'holdings', code: 'validation_failed', message: wrong });
  if (problems.length > 0) throw fieldErrors(problems);
  const at = deps.clock.now().toISOString();
  const id = await deps.db.transaction().execute(async (trx) => {
    const made = await store.insertPortfolio(trx, {
      name,
      description: input.description.trim(),
      risk: input.risk_level,
      fee_bps: input.annual_fee_bps,
      holdings: JSON.stringify(holdings),
      created_at: at,
    });
    if (made === undefined) throw conflict('portfolio_exists', `a portfolio is named ${JSON.stringify(name)} already`);
    await recordAudit(trx, {
      book: 'live',
      actor,
      action: 'portfolio.created',
      object_type: 'portfolio',
      object_id: made,
      before: null,
      after: { name, fee_bps: input.annual_fee_bps, holdings },
      at,
    });
    return made;
  });
  return await getPortfolio(deps, id);
}

/** No donor may choose it from now on; what it holds is valued as before (audited). Throws portfolio_not_found, portfolio_retired. */
export async function retirePortfolio(deps: Deps, id: number, actor: string): Promise<PortfolioView> {
  const at = deps.clock.now().toISOString();
  await deps.db.transaction().execute(async (trx) => {
    if ((await store.findPortfolio(trx, id)) === undefined) throw notFound('portfolio_not_found', `no portfolio ${id}`);
    if (!(await store.retirePortfolio(trx, id, at))) throw conflict('portfolio_retired', `portfolio ${id} is retired already`);
    await recordAudit(trx, {
      book: 'live',
      actor,
      action: 'portfolio.retired',
      object_type: 'portfolio',
      object_id: id,
      before: { status: 'active' },
      after: { status: 'retired' },
      at,
    });
  });
  return await getPortfolio(deps, id);
}

const refused = (problems: ReadonlyArray<{ line: number; reason: string }>) => fileRefused('prices_malformed', 'the prices were refused: nothing was imported', problems);

async function importChecked(deps: Deps, check: PriceCheck, actor: string) {
  if (!check.ok) throw refused(check.problems);
  const stored = new Set((await store.storedPrices(deps.db, check.rows)).map((p) => `${p.symbol} ${p.at}`));
  const again = check.rows.filter((r) => stored.has(`${r.symbol} ${r.at}`));
  if (again.length > 0) throw refused(again.map((r) => ({ line: r.line, reason: `${r.symbol} at ${r.at} was imported before` })));
  const at = deps.clock.now().toISOString();
  await deps.db.transaction().execute(async (trx) => {
    await store.insertPrices(
      trx,
      check.rows.map((r) => ({ symbol: r.symbol, at: r.at, price: decimalText(r.price), imported_at: at })),
    );
    const times = check.rows.map((r) => r.at).sort();
    await recordAudit(trx, {
      book: 'live',
      actor,
      action: 'prices.imported',
      object_type: 'prices',
      object_id: 0,
      before: null,
      after: { prices: check.rows.length, from: times[0], to: times.at(-1) },
      at,
    });
  });
  const symbols = [...new Set(check.rows.map((r) => r.symbol))].sort();
  return { imported: check.rows.length, symbols };
}

/** A price file (portfolios.ts readPriceFile), all or nothing. Throws prices_malformed (each problem by line, a price imported before too). */
export async function importPriceFile(deps: Deps, text: string, actor: string) {
  return await importChecked(deps, readPriceFile(text, deps.clock.now().toISOString()), actor);
}

/** Prices from the operator API, checked and imported as a file's rows (line: the item's place, from 1). */
export async function importPrices(deps: Deps, prices: ReadonlyArray<{ symbol: string; price: string; time: string }>, actor: string) {
  return await importChecked(
    deps,
    checkPrices(
      prices.map((p, i) => ({ line: i + 1, ...p })),
      deps.clock.now().toISOString(),
    ),
    actor,
  );
}

const valuationRunning = (v: store.ValuationRow) =>
  conflict(
    'valuation_running',
    `valuation ${v.id} (at ${v.at}) is still running, past fund ${v.after_fund_id} of its ${v.stage === 'monthly_fees' ? 'monthly fees' : 'funds'}: a server's job finishes it, or \`almoner valuation finish\``,
  );

type Valued = { portfolio: store.PortfolioRow; unit: bigint; before: bigint | null; prices: Map<string, bigint> };

/** Every portfolio's unit price at `at` from its holdings' prices (the one before it, if any). Throws price_missing. */
async function unitPricesAt(deps: Deps, at: string): Promise<Valued[]> {
  const portfolios = await store.listPortfolios(deps.db, false);
  const previous = await store.latestUnitPrices(
    deps.db,
    portfolios.map((p) => Number(p.id)),
  );
  const missing: string[] = [];
  const valued: Valued[] = [];
  for (const p of portfolios) {
    const holdings = JSON.parse(p.holdings) as Holding[];
    const found = await store.pricesAt(
      deps.db,
      holdings.map((h) => h.symbol),
      at,
    );
    const absent = holdings.filter((h) => !found.has(h.symbol)).map((h) => h.symbol);
    if (absent.length > 0) {
      missing.push(`${p.name}: ${absent.join(', ')}`);
      continue;
    }
    const prices = new Map([...found].map(([symbol, f]) => [symbol, parse8(f.price) as bigint]));
    const last = previous.get(Number(p.id));
    if (last === undefined) valued.push({ portfolio: p, unit: FIRST_UNIT_PRICE, before: null, prices });
    else {
      const before = parse8(last.unit_price) as bigint;
      const then = new Map(Object.entries(JSON.parse(last.prices) as Record<string, string>).map(([symbol, price]) => [symbol, parse8(price) as bigint]));
      valued.push({ portfolio: p, unit: nextUnitPrice(before, holdings, then, prices), before, prices });
    }
  }
  if (missing.length > 0) {
    throw new AppError('unprocessable', 'price_missing', `no price at or before ${at} for ${missing.join('; ')}: import them first`, {
      errors: missing.map((m) => ({ field: 'prices', code: 'price_missing', message: m })),
    });
  }
  return valued;
}

/**
 * A valuation at `atText` (default now): each portfolio's unit price from its holdings' latest
 * prices at that time (portfolios.ts nextUnitPrice; $10 at its first). Later than the last
 * valuation, not in the future; every holding must have a price. Throws validation_failed,
 * valuation_in_future, valuation_not_after_last, price_missing, valuation_running. Started in one
 * transaction (its prices fixed), then finished a round of funds at a time (valuation.rounds.ts).
 */
export async function runValuation(deps: Deps, atText: string | undefined, actor: string, rounds: RoundOptions = {}) {
  const now = deps.clock.now().toISOString();
  const at = atText === undefined ? now : timeOf(atText);
  if (at === null) throw fieldErrors([{ field: 'at', code: 'validation_failed', message: 'must be a time (ISO 8601, like 2026-11-27T21:00:00Z)' }]);
  if (at > now) throw new AppError('unprocessable', 'valuation_in_future', `a valuation at ${at} is still to come`);
  const running = await store.runningValuation(deps.db);
  if (running !== undefined) throw valuationRunning(running);
  const last = await store.lastValuation(deps.db);
  if (last !== undefined && at <= last.at) throw conflict('valuation_not_after_last', `the last valuation was at ${last.at}: a new one comes after it`);
  const valued = await unitPricesAt(deps, at);
  const id = await deps.db.transaction().execute(async (trx) => {
    await dialectOf(trx).lockKeys(trx, ['valuation']);
    const running = await store.runningValuation(trx);
    if (running !== undefined) throw valuationRunning(running);
    const lastNow = await store.lastValuation(trx);
    if (lastNow !== undefined && at <= lastNow.at) throw conflict('valuation_not_after_last', `the last valuation was at ${lastNow.at}: a new one comes after it`);
    // The month's first valuation charges the flat monthly fee first, if the platform has one.
    const monthly = deps.config.fundMonthlyFeeCents;
    const charges = monthly > 0 && (lastNow === undefined || lastNow.at.slice(0, 7) !== at.slice(0, 7));
    const made = await store.insertValuation(trx, {
      at,
      created_at: now,
      created_by: actor,
      stage: charges ? 'monthly_fees' : 'funds',
      monthly_fee_cents: charges ? monthly : 0,
    });
    if (made === undefined) throw conflict('valuation_not_after_last', `a valuation at ${at} was made already`);
    // One audit entry per book: each book's journal entries name an action of their own book (ADR 10).
    const auditIds = { live: 0, test: 0 };
    for (const book of BOOKS) {
      auditIds[book] = await recordAudit(trx, {
        book,
        actor,
        action: 'valuation.made',
        object_type: 'valuation',
        object_id: made,
        before: null,
        after: { at, portfolios: valued.length },
        at: now,
      });
    }
    await store.updateValuation(trx, made, { audit_ids: JSON.stringify(auditIds) });
    // Its unit prices are fixed now; the units outstanding grow round by round (valuation.rounds.ts).
    await store.insertPortfolioValuations(
      trx,
      valued.map((v) => ({
        valuation_id: made,
        portfolio_id: Number(v.portfolio.id),
        unit_price: decimalText(v.unit),
        prices: JSON.stringify(Object.fromEntries([...v.prices].map(([symbol, price]) => [symbol, decimalText(price)]))),
        units_outstanding: decimalText(0n),
      })),
    );
    return made;
  });
  await finishValuation(deps, id, rounds);
  return {
    id,
    at,
    portfolios: valued.map((v) => ({
      id: Number(v.portfolio.id),
      name: v.portfolio.name,
      unit_price: decimalText(v.unit),
      previous_unit_price: v.before === null ? null : decimalText(v.before),
    })),
  };
}
