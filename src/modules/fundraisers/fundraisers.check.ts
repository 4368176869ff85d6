// `almoner check` of fundraisers (rules §22): what a fundraiser shows as raised by its donations
// is what the journal says they hold or paid, and each donation names a fundraiser of its own book
// and organisation.
import type { Db } from '../../db/database.ts';
import { fundraiserTotals } from '../donations/index.ts';
import { RAISED_STATUSES } from './fundraisers.ts';
import { fundraiserJournal } from './fundraisers.store.ts';
import { everyMatch, matchBooks } from './matches.store.ts';

export async function fundraiserProblems(db: Db): Promise<string[]> {
  const { journal, strays } = await fundraiserJournal(db);
  const shown = await fundraiserTotals(db, [...journal.keys()], RAISED_STATUSES);
  const failures = [...journal]
    .filter(([id, cents]) => BigInt(shown.get(id)?.cents ?? 0) !== cents)
    .map(([id, cents]) => `fundraiser ${id}: shows ${shown.get(id)?.cents ?? 0} cents raised by its donations, the journal says they hold or paid ${cents}`);
  return [...failures, ...strays.map((s) => `donation ${s.donation_id} names fundraiser ${s.fundraiser_id} of another book or organisation`)];
}

/**
 * `almoner check` of matches (rules §22): each holds what its cap less what it matched says while
 * live, and nothing once ended; it never passed its cap; what it matched is what its donations for
 * matched ones sum to; each of those matches a donation of its fundraiser, from its own fund.
 */
export async function matchProblems(db: Db): Promise<string[]> {
  const { nets, given, strays } = await matchBooks(db);
  const failures: string[] = [];
  for (const m of await everyMatch(db)) {
    const held = m.ended_at === null ? BigInt(m.cap_cents - m.matched_cents) : 0n;
    if ((nets.get(m.id) ?? 0n) !== held) failures.push(`match ${m.id}: holds ${nets.get(m.id) ?? 0n} cents, should hold ${held} (cap ${m.cap_cents}, matched ${m.matched_cents})`);
    if (m.matched_cents > m.cap_cents) failures.push(`match ${m.id}: matched ${m.matched_cents} cents, past its cap of ${m.cap_cents}`);
    if ((given.get(m.id) ?? 0n) !== BigInt(m.matched_cents))
      failures.push(`match ${m.id}: matched ${m.matched_cents} cents, its donations for matched ones sum to ${given.get(m.id) ?? 0n}`);
  }
  return [...failures, ...strays.map((s) => `donation ${s.donation_id} of match ${s.match_id} matches no donation of its fundraiser, or is not of its fund`)];
}
