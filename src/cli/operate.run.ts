// What every operator command of operate.ts is run with: its parsed, checked arguments; and how
// it writes a line.
import type { Book } from '../shared/book.ts';
import { parseArgs } from 'node:util';

/** The arguments every command is run with, parsed and checked. */
/** The options every operator command's arguments are parsed with (each command takes some: operate.ts OPTIONS_OF). */
export function parse(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: {
      page: { type: 'string' },
      user: { type: 'string' },
      type: { type: 'string' },
      units: { type: 'string' },
      valuation: { type: 'string' },
      currency: { type: 'string' },
      status: { type: 'string' },
      frequency: { type: 'string' },
      to: { type: 'string' },
      reason: { type: 'string' },
      amount: { type: 'string' },
      date: { type: 'string' },
      name: { type: 'string' },
      days: { type: 'string' },
      operator: { type: 'string' },
      reference: { type: 'string' },
      source: { type: 'string' },
      yes: { type: 'boolean', default: false },
      force: { type: 'boolean' },
      // Operators act in the live book; --sandbox acts on the sandbox twins' instead (rules §14).
      sandbox: { type: 'boolean', default: false },
    },
  });
}

export interface Run {
  values: ReturnType<typeof parse>['values'];
  positionals: string[];
  book: Book;
  sub: string | undefined;
  key: string;
}

export const out = (text: string) => process.stdout.write(`${text}\n`);
