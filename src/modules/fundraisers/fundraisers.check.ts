// `almoner check` of fundraisers (rules §22): what a fundraiser shows as raised by its donations
// is what the journal says they hold or paid, and each donation names a fundraiser of its own book
// and organisation.
import type { Db } from '../../db/database.ts';
import { fundraiserTotals } from '../donations/index.ts';
import { RAISED_STATUSES } from './fundraisers.ts';
import { fundraiserJournal } from './fundraisers.store.ts';

export async function fundraiserProblems(db: Db): Promise<string[]> {
  const { journal, strays } = await fundraiserJournal(db);
  const shown = await fundraiserTotals(db, [...journal.keys()], RAISED_STATUSES);
  const failures = [...journal]
    .filter(([id, cents]) => BigInt(shown.get(id)?.cents ?? 0) !== cents)
    .map(([id, cents]) => `fundraiser ${id}: shows ${shown.get(id)?.cents ?? 0} cents raised by its donations, the journal says they hold or paid ${cents}`);
  return [...failures, ...strays.map((s) => `donation ${s.donation_id} names fundraiser ${s.fundraiser_id} of another book or organisation`)];
}
