// alms commands beyond giving: adding money (declare a contribution, read its instructions),
// receipts and tax statements as PDF files, recurring donations, and webhook endpoints. Each is
// checked (UsageError) when planned, before anything is sent.
import { writeFileSync } from 'node:fs';
import type { AlmonerClient } from './index.ts';
import { dollars, einArg, listOf, positive, takesArgs, usd, UsageError } from './cli-format.ts';

export interface Planned {
  run: (client: AlmonerClient) => Promise<unknown>;
  print: (answer: never) => string;
}

export interface Context {
  rest: string[];
  values: Record<string, string | boolean | undefined>;
  page: number;
  bold: (s: string) => string;
  /** Asks at a terminal (or takes --yes) before money moves; false: nothing is done. */
  confirm: (question: string) => Promise<boolean>;
  /** Says what a command did beside its answer (a file written). */
  note: (text: string) => void;
}

const CASH = ['check_payment', 'wire_payment', 'bank_account_scheduled_deposit', 'check_daf_transfer', 'wire_daf_transfer', 'company_payment', 'third_party_payment'];
const UNITS = ['stock_payment', 'crypto_payment'];
/** What --frequency takes, and the API's word for each. */
const FREQUENCIES: Record<string, string> = { once: 'OneTime', weekly: 'Weekly', monthly: 'Monthly', yearly: 'Yearly' };
const SAID: Record<string, string> = { OneTime: 'once', Weekly: 'weekly', Monthly: 'monthly', Yearly: 'yearly' };

type Contribution = {
  id: number;
  type: string;
  status: string;
  units: number;
  currency: string;
  valuation: number;
  reference?: string | null;
  instructions?: { steps: string[]; reference: string } | null;
};

/** A contribution, and while it waits for the money, where to send it. */
function contributionText(c: Contribution, bold: (s: string) => string): string {
  const what = c.currency === 'USD' ? usd(c.units * c.valuation) : `${c.units} ${c.currency}`;
  const head = `${bold(`Contribution ${c.id}`)}: ${what} (${c.type}), ${c.status}${c.reference ? `; reference ${c.reference}` : ''}`;
  const steps = c.instructions?.steps ?? [];
  return steps.length === 0 ? head : `${head}\n\nTo send it:\n${steps.map((s, i) => `  ${i + 1}. ${s}`).join('\n')}`;
}

function text(values: Context['values'], name: string): string | undefined {
  const v = values[name];
  return typeof v === 'string' ? v : undefined;
}

/** Writes a downloaded PDF where asked (--out), else to `fallback` in the working directory. */
function save(bytes: Uint8Array, out: string | undefined, fallback: string): string {
  const file = out ?? fallback;
  writeFileSync(file, bytes);
  return file;
}

/** The plan of one of these commands, or undefined when `command` is none of them. */
export function moreCommand(command: string, ctx: Context): Planned | undefined {
  const { rest, values, bold } = ctx;
  switch (command) {
    case 'add': {
      takesArgs(rest, 0, command, '');
      const type = text(values, 'type');
      if (type === undefined || ![...CASH, ...UNITS].includes(type)) throw new UsageError(`--type must be one of ${[...CASH, ...UNITS].join(', ')}`);
      let body: Record<string, unknown>;
      if (UNITS.includes(type)) {
        const units = text(values, 'units');
        const symbol = text(values, 'symbol');
        if (units === undefined || !/^\d{1,12}(\.\d{1,8})?$/.test(units) || Number(units) <= 0) throw new UsageError('--units must be how many shares or tokens, like 12 or 0.5');
        if (symbol === undefined || !/^[A-Za-z0-9.]{1,12}$/.test(symbol)) throw new UsageError('--symbol must be the ticker or token, like AAPL or BTC');
        body = { type, units, symbol: symbol.toUpperCase() };
      } else body = { type, amount: dollars(text(values, 'amount'), '--amount') };
      return { run: (c) => c.contributions.declare(body as never), print: ((x: Contribution) => contributionText(x, bold)) as never };
    }
    case 'contribution': {
      takesArgs(rest, 1, command, 'a contribution id');
      const id = positive(rest[0], 'the contribution id');
      return { run: (c) => c.contributions.get(id), print: ((x: Contribution) => contributionText(x, bold)) as never };
    }
    case 'receipt': {
      takesArgs(rest, 1, command, 'a contribution id');
      const id = positive(rest[0], 'the contribution id');
      if (values.json === true) return { run: (c) => c.contributions.receipt(id), print: (a: never) => JSON.stringify(a) };
      return {
        run: async (c) => save(await c.contributions.receiptPdf(id), text(values, 'out'), `receipt-${id}.pdf`),
        print: ((file: string) => `Saved the receipt of contribution ${id} to ${file}.`) as never,
      };
    }
    case 'statement': {
      takesArgs(rest, 1, command, 'a year');
      const year = positive(rest[0], 'the year');
      if (year < 2000 || year > 2999) throw new UsageError('the year must be like 2026');
      if (values.json === true) return { run: (c) => c.taxStatements.get(year), print: (a: never) => JSON.stringify(a) };
      return {
        run: async (c) => save(await c.taxStatements.pdf(year), text(values, 'out'), `tax-statement-${year}.pdf`),
        print: ((file: string) => `Saved the ${year} tax statement to ${file}.`) as never,
      };
    }
    case 'recurring':
      return recurring(ctx);
    case 'webhooks':
      return webhooks(ctx);
    default:
      return undefined;
  }
}

function recurring({ rest, values, page, bold, confirm }: Context): Planned {
  const [sub, ...more] = rest;
  type Schedule = { id: number; amount: number; frequency: string; next_date: string | null; status: string; non_profit_name: string; ein: string };
  const line = (s: Schedule) =>
    `Recurring donation ${s.id}: ${usd(s.amount)} ${SAID[s.frequency] ?? s.frequency} to ${s.non_profit_name}, ${s.status}${s.next_date ? `; next on ${s.next_date}` : ''}.`;
  if (sub === undefined) {
    return {
      run: (c) => c.recurring.list({ page }),
      print: listOf(
        ['ID', 'Non-profit', 'Amount', 'How often', 'Next', 'Status'],
        (s: Schedule) => [s.id, s.non_profit_name, usd(s.amount), SAID[s.frequency] ?? s.frequency, s.next_date ?? '', s.status],
        bold,
      ) as never,
    };
  }
  if (sub === 'create') {
    takesArgs(more, 0, 'recurring create', '');
    const ein = einArg(text(values, 'ein'));
    const amount = dollars(text(values, 'amount'), '--amount');
    const frequency = text(values, 'frequency') ?? 'monthly';
    const apiFrequency = FREQUENCIES[frequency];
    if (apiFrequency === undefined) throw new UsageError(`--frequency must be one of ${Object.keys(FREQUENCIES).join(', ')}`);
    const start = text(values, 'start');
    if (start !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(start)) throw new UsageError('--start must be a date, YYYY-MM-DD');
    const note = text(values, 'note');
    return {
      run: async (c) => {
        const np = await c.nonProfits.get(ein);
        if (!(await confirm(`Give ${usd(amount)} ${frequency} to ${np.name} (EIN ${np.ein})${start === undefined ? ', from today' : `, from ${start}`}?`))) return undefined;
        return c.recurring.create({
          ein: np.ein,
          amount,
          frequency: apiFrequency,
          ...(start === undefined ? {} : { next_date: start }),
          ...(note === undefined ? {} : { note }),
        } as never);
      },
      print: line as never,
    };
  }
  if (sub === 'cancel') {
    takesArgs(more, 1, 'recurring cancel', 'a recurring donation id');
    const id = positive(more[0], 'the recurring donation id');
    return {
      run: async (c) => {
        const s = (await c.recurring.get(id)) as unknown as Schedule;
        if (!(await confirm(`Stop recurring donation ${id} (${usd(s.amount)} ${SAID[s.frequency] ?? s.frequency} to ${s.non_profit_name})?`))) return undefined;
        await c.recurring.cancel(id);
        return s;
      },
      print: (() => `Recurring donation ${id} is stopped; what it gave stays given.`) as never,
    };
  }
  throw new UsageError('recurring takes nothing (the list), create, or cancel <id>');
}

function webhooks({ rest, values, page, bold, note }: Context): Planned {
  const [sub, ...more] = rest;
  type Endpoint = { id: number; url: string; event_types: string[]; disabled: boolean; secret?: string };
  if (sub === undefined) {
    return {
      run: (c) => c.webhooks.list({ page }),
      print: listOf(
        ['ID', 'URL', 'Events', 'State'],
        (e: Endpoint) => [e.id, e.url, e.event_types.length === 0 ? 'all' : e.event_types.join(','), e.disabled ? 'disabled' : 'on'],
        bold,
      ) as never,
    };
  }
  if (sub === 'create') {
    takesArgs(more, 1, 'webhooks create', 'the https:// address to deliver to');
    const url = more[0];
    if (url === undefined || !/^https?:\/\/\S+$/.test(url))
      throw new UsageError('the address must be https://... to deliver to (for one on this machine, use alms listen --forward-to)');
    const events = text(values, 'events');
    const types = events === undefined ? [] : events.split(',').map((t) => t.trim());
    return {
      run: (c) => c.webhooks.create({ url, event_types: types } as never),
      print: ((e: Endpoint) => {
        note(`Keep the signing secret now: it is not shown again.`);
        return `Webhook endpoint ${e.id}: ${e.url} (${e.event_types.length === 0 ? 'every event' : e.event_types.join(', ')})\nSigning secret: ${e.secret ?? ''}`;
      }) as never,
    };
  }
  if (sub === 'delete') {
    takesArgs(more, 1, 'webhooks delete', 'an endpoint id');
    const id = positive(more[0], 'the endpoint id');
    return { run: async (c) => (await c.webhooks.delete(id)) ?? {}, print: (() => `Webhook endpoint ${id} is deleted.`) as never };
  }
  throw new UsageError('webhooks takes nothing (the list), create, or delete <id>');
}
