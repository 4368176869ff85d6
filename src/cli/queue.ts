// `almoner donations waiting`: the operator's queue, the donations waiting for a decision
// (scheduled: for approval) or in another status, oldest first, as /admin/v1/donations lists them.
import { parseArgs } from 'node:util';
import type { Book } from '../shared/book.ts';
import { donationQueue, DONATION_STATUSES, type DonationStatus } from '../modules/donations/index.ts';
import { dollarsText, centsOfDollars } from '../shared/money.ts';
import { UsageError, withPlatform } from './common.ts';

export async function donationsWaiting(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, strict: true, options: { status: { type: 'string' }, sandbox: { type: 'boolean', default: false } } });
  if (positionals.length > 0) throw new UsageError(`donations waiting takes no ${positionals.join(' ')}`);
  const status = (values.status ?? 'scheduled') as DonationStatus;
  if (!(DONATION_STATUSES as readonly string[]).includes(status)) throw new UsageError(`--status is one of ${DONATION_STATUSES.join(', ')}`);
  const book: Book = values.sandbox === true ? 'test' : 'live';
  return withPlatform(async ({ deps }) => {
    let after = 0;
    let count = 0;
    for (;;) {
      const page = await donationQueue(deps, book, status, 500, after);
      for (const d of page)
        process.stdout.write(
          `${String(d.id).padStart(7)}  ${d.created_at.slice(0, 16).replace('T', ' ')}  $${dollarsText(centsOfDollars(d.amount)).padStart(10)}  EIN ${d.ein} ${d.non_profit}${d.screening === 'clear' ? '' : ` [${d.screening}]`}  from ${d.donor} (user ${d.user_id})\n`,
        );
      count += page.length;
      if (page.length < 500) break;
      after = page.at(-1)?.id ?? after;
    }
    process.stdout.write(`${count} donation${count === 1 ? '' : 's'} ${status}${status === 'scheduled' ? ' (waiting for approval: almoner donations approve ID...)' : ''}\n`);
    return 0;
  });
}
