// The operator's money-in commands (docs/operating.md, "Money in"): what declared contributions
// wait for their money, what arrived for one, and the correction of a value recorded wrongly.
import type { Book } from '../shared/book.ts';
import { usdText } from '../shared/money.ts';
import { correctReceivedValue, declarationsAwaitingMoney, receiveDeclared } from '../modules/contributions/index.ts';
import { actor, id, UsageError, withPlatform } from './common.ts';

/** The options these commands read (operate.ts parses and vets them). */
export interface MoneyInOptions {
  units?: string | undefined;
  valuation?: string | undefined;
  amount?: string | undefined;
  source?: string | undefined;
  reason?: string | undefined;
  reference?: string | undefined;
  force?: boolean | undefined;
}

const out = (text: string) => process.stdout.write(`${text}\n`);

/** What arrived: cash as --amount DOLLARS (--units DOLLARS --valuation 1), anything else as --units with --valuation. */
function arrivedValue(values: MoneyInOptions): { units: string; valuation: string; valuation_source?: string } {
  if (values.amount !== undefined && (values.units !== undefined || values.valuation !== undefined))
    throw new UsageError('--amount (cash) or --units with --valuation (anything else), not both');
  const units = values.amount ?? values.units;
  const valuation = values.amount === undefined ? values.valuation : '1';
  if (units === undefined || valuation === undefined) throw new UsageError('give --amount DOLLARS (cash), or --units U --valuation V (stock, crypto...)');
  return { units, valuation, ...(values.source === undefined ? {} : { valuation_source: values.source }) };
}

/** `contributions awaiting|receive|correct-value`: each parses its arguments fully before touching the database. */
export async function moneyIn(command: string, values: MoneyInOptions, positionals: readonly string[], book: Book): Promise<number> {
  if (command === 'contributions awaiting') {
    const reference = values.reference;
    if (reference !== undefined && !/^[A-Za-z0-9-]{1,20}$/.test(reference)) throw new UsageError('--reference is a reference like ALM-7KQ2-MX9D');
    return withPlatform(async ({ deps }) => {
      const waiting = await declarationsAwaitingMoney(deps, book, reference);
      for (const c of waiting)
        out(
          `${String(c.id).padStart(6)}  ${c.reference}  user ${String(c.user_id).padEnd(6)} ${c.type.padEnd(32)} ${c.currency === 'USD' ? `$${c.units.toFixed(2)}` : `${c.units} ${c.currency}`}  declared ${c.declared_at}`,
        );
      out(`${waiting.length} declared contributions waiting for their money${reference === undefined ? '' : ` with reference ${reference}`}`);
      return 0;
    });
  }
  if (command === 'contributions receive') {
    const which = positionals[0];
    if (which === undefined || !/^([1-9][0-9]{0,15}|[A-Za-z0-9-]{1,20})$/.test(which)) throw new UsageError("give the declaration's reference (ALM-7KQ2-MX9D) or its id");
    const arrived = { ...arrivedValue(values), force: values.force === true };
    return withPlatform(async ({ deps }) => {
      let contributionId = /^[0-9]+$/.test(which) ? Number(which) : undefined;
      if (contributionId === undefined) {
        const [found] = await declarationsAwaitingMoney(deps, book, which);
        if (found === undefined) throw new UsageError(`no declared contribution waits for money with reference ${which} (almoner contributions awaiting lists them)`);
        contributionId = found.id;
      }
      await receiveDeclared(deps, book, contributionId, arrived, actor());
      out(`Contribution ${contributionId} received: ${arrived.units} at ${arrived.valuation}; it is pending (advance it --to success when it clears).`);
      return 0;
    });
  }
  const contributionId = id(positionals[0], 'the contribution id');
  const value = arrivedValue(values);
  if (values.reason === undefined) throw new UsageError('--reason is required: the corrected receipt states why');
  const reason = values.reason;
  return withPlatform(async ({ deps }) => {
    const done = await correctReceivedValue(deps, book, contributionId, { ...value, reason }, actor());
    const receipt = done.receipt === null ? '' : `; receipt ${done.receipt} replaces the previous one, which remains`;
    out(`Contribution ${contributionId} is worth ${usdText(done.amount_cents)} (was ${usdText(done.previous_cents)})${receipt}.`);
    return 0;
  });
}
