// `alms`: the donor's command line, on the client. The commands and flags of
// the hosted service's donor CLI; `--json` prints the API's JSON exactly;
// exit 0, 1 (the API said no: its message), 2 (usage: nothing was sent).
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { parseArgs } from 'node:util';
import { AlmonerError, createClient, type AlmonerClient } from './index.ts';
import { dollars, einArg, listOf as listWith, positive, table, takesArgs, usd, UsageError } from './cli-format.ts';
import { listen, sessionSecret, type Listening } from './cli-listen.ts';
import { moreCommand, type Planned } from './cli-more.ts';

export const USAGE = `Usage: alms <command> [options]

  login [--key KEY] [--url URL]     Save your API key (read from the terminal if not given)
  me                                Your profile
  user <slug>                       Someone's profile
  balance                           Your fund's balance
  search <query> [--cause ID]       Find non-profits
  nonprofit <ein>                   One non-profit
  causes [slug]                     The causes of your fund (or someone's)
  donations                         Your donations
  donate --ein EIN --amount DOLLARS [--note TEXT]
                                    Give to a non-profit (asks first; --yes does not)
  cancel <id>                       Cancel a donation that has not been paid (asks first)
  gifts                             Your gifts
  gift <code>                       One gift
  gift create --name NAME --amount DOLLARS [--message TEXT] [--email ADDRESS]
                                    Set money aside for someone to direct (asks first)
  contributions                     Money you put into your fund
  add --type TYPE --amount DOLLARS  Add money: declare a check, wire or transfer (stock and crypto:
                                    --units N --symbol AAPL); prints where to send it
  contribution <id>                 One contribution, with its instructions while it waits
  receipt <id> [--out FILE]         Download a contribution's receipt (PDF; --json: its data)
  statement <year> [--out FILE]     Download the year's tax statement (PDF; --json: its data)
  recurring                         Your recurring donations
  recurring create --ein EIN --amount DOLLARS [--frequency monthly] [--start YYYY-MM-DD]
                                    Give on a schedule (asks first)
  recurring cancel <id>             Stop one (asks first)
  webhooks                          Your webhook endpoints
  webhooks create URL [--events TYPE,TYPE]   (prints its signing secret once)
  webhooks delete <id>
  listen --forward-to URL [--secret whsec_...] [--events TYPE,TYPE] [--interval SECONDS]
                                    Forward your events, signed as webhooks, to a local URL

Options: --json (the API's JSON, for scripts), --page N (lists), --yes (no confirmation).
The key: ALMONER_API_KEY, else the one saved by \`alms login\`; the server: ALMONER_URL, else
the saved one, else http://127.0.0.1:3000.
`;

export interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
  env: NodeJS.ProcessEnv;
  /** A line typed at a terminal, or undefined when not on one (a script). */
  ask: ((question: string) => Promise<string>) | undefined;
  /** Stops a command that runs until stopped (listen); the process's signals when absent. */
  signal?: AbortSignal;
}

const configFile = (env: NodeJS.ProcessEnv) => join(env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config'), 'almoner', 'credentials.json');

function saved(env: NodeJS.ProcessEnv): { key?: string; url?: string } {
  try {
    return JSON.parse(readFileSync(configFile(env), 'utf8')) as { key?: string; url?: string };
  } catch {
    return {};
  }
}

/** Runs one command; returns the exit code. */
export async function alms(argv: string[], io: Io): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        json: { type: 'boolean', default: false },
        yes: { type: 'boolean', default: false },
        page: { type: 'string' },
        cause: { type: 'string' },
        ein: { type: 'string' },
        amount: { type: 'string' },
        note: { type: 'string' },
        name: { type: 'string' },
        message: { type: 'string' },
        email: { type: 'string' },
        key: { type: 'string' },
        url: { type: 'string' },
        type: { type: 'string' },
        units: { type: 'string' },
        symbol: { type: 'string' },
        out: { type: 'string' },
        frequency: { type: 'string' },
        start: { type: 'string' },
        events: { type: 'string' },
        'forward-to': { type: 'string' },
        secret: { type: 'string' },
        interval: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (error) {
    io.err(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [command, ...rest] = positionals;
  if (command === undefined || command === 'help' || values.help) {
    (command === undefined && !values.help ? io.err : io.out)(USAGE);
    return command === undefined && !values.help ? 2 : 0;
  }
  const color = io.env.NO_COLOR === undefined && io.env.TERM !== 'dumb' && io.env.ALMS_COLOR !== '0';
  const bold = (s: string) => (color ? `\u001b[1m${s}\u001b[22m` : s);
  const config = saved(io.env);
  const url = values.url ?? (io.env.ALMONER_URL || config.url || 'http://127.0.0.1:3000');
  try {
    const pageNumber = values.page === undefined ? 1 : positive(values.page, '--page');
    const args = (n: number, what: string) => takesArgs(rest, n, command, what);
    const confirm = async (question: string) => {
      if (values.yes) return true;
      if (io.ask === undefined) throw new UsageError(`${command} moves money: run it from a terminal to confirm, or add --yes`);
      return /^y(es)?$/i.test((await io.ask(`${question} [y/N] `)).trim());
    };
    // Everything is checked before the first request.
    let extra: Planned | undefined;
    let listening: Omit<Listening, 'out' | 'signal'> | undefined;
    let run: (client: AlmonerClient) => Promise<unknown>;
    let print: (answer: never) => string = (a) => JSON.stringify(a, null, 2);
    switch (command) {
      case 'login': {
        args(0, '');
        const key = values.key ?? (io.ask === undefined ? undefined : (await io.ask('API key (alm_live_... or alm_test_...): ')).trim());
        if (key === undefined || !/^alm_(live|test)_[0-9A-Za-z]{20,}$/.test(key)) throw new UsageError('give an API key: --key alm_live_..., or run alms login in a terminal');
        const me = await createClient({ baseUrl: url, apiKey: key }).me();
        const file = configFile(io.env);
        mkdirSync(join(file, '..'), { recursive: true, mode: 0o700 });
        writeFileSync(file, `${JSON.stringify({ url, key }, null, 2)}\n`, { mode: 0o600 });
        chmodSync(file, 0o600);
        io.out(values.json ? JSON.stringify(me) : `Signed in to ${url} as ${me.name} (@${me.slug}); the key is saved in ${file}, readable by you only.`);
        return 0;
      }
      case 'me':
      case 'balance':
      case 'donations':
      case 'gifts':
      case 'contributions':
        args(0, '');
        break;
      case 'user':
      case 'nonprofit':
      case 'cancel':
        args(1, command === 'user' ? 'a slug' : command === 'nonprofit' ? 'an EIN' : 'a donation id');
        break;
      case 'search':
        if (rest.length === 0) throw new UsageError('search takes the words to look for');
        break;
      case 'causes':
        if (rest.length > 1) throw new UsageError('causes takes at most a slug');
        break;
      case 'donate':
        args(0, '');
        einArg(values.ein);
        dollars(values.amount, '--amount');
        break;
      case 'gift':
        if (rest[0] === 'create') {
          if (rest.length !== 1) throw new UsageError('gift create takes options only');
          if (values.name === undefined || values.name.trim() === '') throw new UsageError('--name is required: who the gift is for');
          dollars(values.amount, '--amount');
        } else args(1, 'a gift code, or create');
        break;
      case 'listen': {
        args(0, '');
        let forwardTo: URL;
        try {
          forwardTo = new URL(values['forward-to'] ?? '');
        } catch {
          throw new UsageError('--forward-to must be the URL to deliver to, like http://localhost:4242/webhooks');
        }
        if (forwardTo.protocol !== 'http:' && forwardTo.protocol !== 'https:') throw new UsageError('--forward-to must be an http:// or https:// URL');
        if (values.secret !== undefined && !/^whsec_[A-Za-z0-9+/=]{16,}$/.test(values.secret)) throw new UsageError("--secret must be an endpoint's signing secret, whsec_...");
        const seconds = values.interval === undefined ? 2 : Number(values.interval);
        if (!(seconds >= 0.1 && seconds <= 3600)) throw new UsageError('--interval must be seconds between reads, from 0.1 to 3600');
        listening = {
          forwardTo,
          secret: values.secret ?? sessionSecret(),
          given: values.secret !== undefined,
          types: values.events === undefined ? [] : values.events.split(',').map((t) => t.trim()),
          intervalMs: seconds * 1000,
        };
        break;
      }
      default:
        extra = moreCommand(command, { rest, values, page: pageNumber, bold, confirm, note: io.err });
        if (extra === undefined) throw new UsageError(`unknown command: ${command}`);
    }
    const apiKey = io.env.ALMONER_API_KEY || config.key;
    if (apiKey === undefined || apiKey === '') throw new UsageError('no API key: run alms login, or set ALMONER_API_KEY');
    const client = createClient({ baseUrl: url, apiKey });
    if (listening !== undefined) {
      const stop = new AbortController();
      const onSignal = () => stop.abort();
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      try {
        const forwarded = await listen(client, { ...listening, out: io.out, signal: io.signal ?? stop.signal });
        io.err(`Stopped after forwarding ${forwarded} event${forwarded === 1 ? '' : 's'}.`);
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
      return 0;
    }
    const listOf = <T>(headers: string[], row: (x: T) => Array<string | number>) => listWith<T>(headers, row, bold);
    switch (extra === undefined ? command : 'extra') {
      case 'extra':
        ({ run, print } = extra as Planned);
        break;
      case 'me':
        run = (c) => c.me();
        print = ((u: { name: string; slug: string; city?: string | null; donations_count?: number }) => `${bold(u.name)} (@${u.slug})${u.city ? `, ${u.city}` : ''}`) as never;
        break;
      case 'user':
        run = (c) => c.users.get(rest[0] as string);
        print = ((u: { name: string; slug: string; city?: string | null }) => `${bold(u.name)} (@${u.slug})${u.city ? `, ${u.city}` : ''}`) as never;
        break;
      case 'balance':
        run = (c) => c.balance();
        print = ((b: Record<string, number>) =>
          table(
            ['', 'USD'],
            [
              ['Total', usd(b.amount ?? 0)],
              ['Available to give', usd(b.available_balance ?? 0)],
              ['Pending deposits', usd(b.pending_deposit_balance ?? 0)],
              ['Invested', usd(b.portfolio_balance ?? 0)],
            ],
            bold,
          )) as never;
        break;
      case 'search': {
        const cause = values.cause === undefined ? undefined : positive(values.cause, '--cause');
        run = (c) => c.nonProfits.search({ query: rest.join(' '), page: pageNumber, ...(cause === undefined ? {} : { cause_id: cause }) } as never);
        print = listOf(['EIN', 'Name', 'City', 'State'], (n: { ein: string; name: string; city: string; state: string }) => [n.ein, n.name, n.city, n.state]) as never;
        break;
      }
      case 'nonprofit':
        run = (c) => c.nonProfits.get(rest[0] as string);
        print = ((n: { ein: string; name: string; city: string; state: string; website?: string | null }) =>
          `${bold(n.name)}\nEIN ${n.ein} · ${n.city}, ${n.state}${n.website ? `\n${n.website}` : ''}`) as never;
        break;
      case 'causes':
        run = (c) => c.users.causes(rest[0] ?? 'me');
        print = ((list: Array<{ id: number; name: string }>) =>
          list.length === 0
            ? 'No causes.'
            : table(
                ['ID', 'Cause'],
                list.map((x) => [x.id, x.name]),
                bold,
              )) as never;
        break;
      case 'donations':
        run = (c) => c.donations.list({ page: pageNumber });
        print = listOf(['ID', 'Date', 'Non-profit', 'Amount', 'Status'], (d: { id: number; created_at: string; amount: number; status: string; non_profit: { name: string } }) => [
          d.id,
          d.created_at.slice(0, 10),
          d.non_profit.name,
          usd(d.amount),
          d.status,
        ]) as never;
        break;
      case 'donate': {
        const amount = dollars(values.amount, '--amount');
        const ein = einArg(values.ein);
        run = async (c) => {
          const np = await c.nonProfits.get(ein);
          if (!(await confirm(`Donate ${usd(amount)} to ${np.name} (EIN ${np.ein})?`))) return undefined;
          return c.donations.create({ ein, amount, ...(values.note === undefined ? {} : { note: values.note }) } as never);
        };
        print = ((d: { id: number; amount: number; status: string }) => `Donation ${d.id}: ${usd(d.amount)}, ${d.status}.`) as never;
        break;
      }
      case 'cancel': {
        const id = positive(rest[0], 'the donation id');
        run = async (c) => {
          const d = await c.donations.get(id);
          if (!(await confirm(`Cancel donation ${id} of ${usd(d.amount)} to ${d.non_profit.name}?`))) return undefined;
          return c.donations.cancel(id);
        };
        print = (() => `Donation ${id} is cancelled; its money is available again.`) as never;
        break;
      }
      case 'gifts':
        run = (c) => c.gifts.list({ page: pageNumber });
        print = listOf(['Code', 'For', 'Amount', 'Status'], (g: { code: string; name: string; amount: number; status: string }) => [
          g.code,
          g.name,
          usd(g.amount),
          g.status,
        ]) as never;
        break;
      case 'gift':
        if (rest[0] === 'create') {
          const amount = dollars(values.amount, '--amount');
          run = async (c) => {
            if (!(await confirm(`Set ${usd(amount)} aside as a gift for ${values.name}?`))) return undefined;
            return c.gifts.create({
              name: values.name,
              amount,
              ...(values.message === undefined ? {} : { message: values.message }),
              ...(values.email === undefined ? {} : { email: values.email }),
            } as never);
          };
        } else run = (c) => c.gifts.get(rest[0] as string);
        print = ((g: { name: string; amount: number; status: string; url: string }) => `Gift for ${g.name}: ${usd(g.amount)}, ${g.status}\n${g.url}`) as never;
        break;
      default: // contributions
        run = (c) => c.contributions.list({ page: pageNumber });
        print = listOf(
          ['ID', 'Date', 'Type', 'Units', 'Currency', 'Status'],
          (x: { id: number; created_at: string; type: string; units: number; currency: string; status: string }) => [
            x.id,
            x.created_at.slice(0, 10),
            x.type,
            x.units,
            x.currency,
            x.status,
          ],
        ) as never;
    }
    const answer = await run(client);
    if (answer === undefined) {
      io.err('Nothing was done.');
      return 1;
    }
    io.out(values.json ? JSON.stringify(answer) : print(answer as never));
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`alms: ${error.message}\n\n${USAGE}`);
      return 2;
    }
    if (error instanceof AlmonerError) {
      const fields = error.errors.map((e) => `${e.field} ${e.message}`).join('; ');
      io.err(`alms: ${error.message}${fields === '' || error.message.includes(fields) ? '' : ` (${fields})`}${error.code === 'network_error' ? '' : ` [${error.code}]`}`);
      return 1;
    }
    throw error;
  }
}

/** The process's own terminal, when it has one. */
export function processIo(): Io {
  const tty = process.stdin.isTTY === true && process.stdout.isTTY === true;
  return {
    out: (text) => process.stdout.write(`${text}\n`),
    err: (text) => process.stderr.write(`${text}\n`),
    env: { ...process.env, ...(process.stdout.isTTY ? {} : { ALMS_COLOR: '0' }) },
    ask: tty
      ? async (question) => {
          const rl = createInterface({ input: process.stdin, output: process.stdout });
          try {
            return await rl.question(question);
          } finally {
            rl.close();
          }
        }
      : undefined,
  };
}
