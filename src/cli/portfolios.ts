// `almoner portfolios`, `almoner prices`, `almoner valuation` (docs/rules.md
// §19): the portfolios offered, prices imported from a file, valuations made.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createPortfolio, finishRunningValuation, importPriceFile, listPortfolios, retirePortfolio, runValuation, type RoundOptions } from '../modules/portfolio/index.ts';
import { UsageError, actor, id, withPlatform } from './common.ts';

export async function portfoliosCommand(sub: string | undefined, rest: string[]): Promise<number> {
  switch (sub) {
    case 'list': {
      parseArgs({ args: rest, strict: true, options: {} });
      return await withPlatform(async ({ deps }) => {
        const all = await listPortfolios(deps, { all: true });
        if (all.length === 0) process.stdout.write('No portfolio yet (almoner portfolios create).\n');
        for (const p of all) {
          const price = p.unit_price === null ? 'not valued yet' : `$${p.unit_price} a unit at ${p.valued_at}`;
          process.stdout.write(
            `${p.id}  ${p.name}  (${p.risk_level} risk, ${p.annual_fee_bps} bp a year${p.status === 'retired' ? ', retired' : ''}): ${price}\n    ${p.holdings.map((h) => `${h.symbol} ${h.weight}%`).join(', ')}\n`,
          );
        }
        return 0;
      });
    }
    case 'create': {
      const { values } = parseArgs({
        args: rest,
        strict: true,
        options: { name: { type: 'string' }, description: { type: 'string', default: '' }, risk: { type: 'string' }, 'fee-bps': { type: 'string' }, holdings: { type: 'string' } },
      });
      if (values.name === undefined || values.risk === undefined || values['fee-bps'] === undefined || values.holdings === undefined)
        throw new UsageError('portfolios create --name NAME --risk low|medium|high --fee-bps N --holdings SYMBOL:WEIGHT,... [--description TEXT]');
      const holdings = values.holdings.split(',').map((part) => {
        const [symbol, weight] = part.split(':');
        if (symbol === undefined || weight === undefined || !/^\d{1,3}$/.test(weight))
          throw new UsageError(`--holdings takes SYMBOL:WEIGHT pairs, like VTI:60,BND:40; not ${JSON.stringify(part)}`);
        return { symbol, weight: Number(weight) };
      });
      if (!/^\d{1,4}$/.test(values['fee-bps'])) throw new UsageError('--fee-bps is a whole number of basis points, like 15');
      const input = { name: values.name, description: values.description, risk_level: values.risk, annual_fee_bps: Number(values['fee-bps']), holdings };
      return await withPlatform(async ({ deps }) => {
        const p = await createPortfolio(deps, input, actor());
        process.stdout.write(`Portfolio ${p.id} ${p.name}: ${p.holdings.map((h) => `${h.symbol} ${h.weight}%`).join(', ')}; valued from the next valuation.\n`);
        return 0;
      });
    }
    case 'retire': {
      const { positionals } = parseArgs({ args: rest, strict: true, allowPositionals: true, options: {} });
      if (positionals.length !== 1) throw new UsageError('portfolios retire ID');
      const portfolioId = id(positionals[0], 'ID');
      return await withPlatform(async ({ deps }) => {
        const p = await retirePortfolio(deps, portfolioId, actor());
        process.stdout.write(`Portfolio ${p.id} ${p.name} is retired: no donor may choose it; what it holds is valued as before.\n`);
        return 0;
      });
    }
    default:
      throw new UsageError(`unknown portfolios command: ${sub ?? '(none)'} (list, create, retire)`);
  }
}

export async function pricesCommand(sub: string | undefined, rest: string[]): Promise<number> {
  if (sub !== 'import') throw new UsageError(`unknown prices command: ${sub ?? '(none)'} (import FILE)`);
  const { positionals } = parseArgs({ args: rest, strict: true, allowPositionals: true, options: {} });
  if (positionals.length !== 1) throw new UsageError('prices import FILE: a CSV whose header names symbol, price and time');
  const file = positionals[0] as string;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${(error as Error).message}`);
  }
  return await withPlatform(async ({ deps }) => {
    const done = await importPriceFile(deps, text, actor());
    process.stdout.write(`Imported ${done.imported} price${done.imported === 1 ? '' : 's'} of ${done.symbols.join(', ')}.\n`);
    return 0;
  });
}

/** Progress of a long valuation on stderr, at most every two seconds. */
function roundProgress(): RoundOptions {
  let shown = performance.now();
  return {
    afterRound: ({ stage, afterFundId }) => {
      if (stage === 'done' || performance.now() - shown < 2_000) return;
      shown = performance.now();
      process.stderr.write(`  ${stage === 'monthly_fees' ? 'monthly fees charged' : 'funds valued'} up to fund ${afterFundId}\n`);
    },
  };
}

export async function valuationCommand(sub: string | undefined, rest: string[]): Promise<number> {
  if (sub === 'finish') {
    parseArgs({ args: rest, strict: true, options: {} });
    return await withPlatform(async ({ deps }) => {
      const finished = await finishRunningValuation(deps, roundProgress());
      process.stdout.write(finished === undefined ? 'No valuation is running.\n' : `Valuation ${finished.id} finished (${finished.rounds} rounds run now).\n`);
      return 0;
    });
  }
  if (sub !== 'run') throw new UsageError(`unknown valuation command: ${sub ?? '(none)'} (run [--at TIME], finish)`);
  const { values } = parseArgs({ args: rest, strict: true, options: { at: { type: 'string' } } });
  return await withPlatform(async ({ deps }) => {
    const v = await runValuation(deps, values.at, actor(), roundProgress());
    process.stdout.write(`Valuation ${v.id} at ${v.at}:\n`);
    for (const p of v.portfolios)
      process.stdout.write(`  ${p.name}: $${p.unit_price} a unit${p.previous_unit_price === null ? ' (its first)' : ` (was $${p.previous_unit_price})`}\n`);
    return 0;
  });
}
