// A person's data (docs/operating.md, "Data of a person"): an operator exports
// all of it, or forgets the person: their personal data is pseudonymised in
// one transaction, audited, while the ledger keeps every amount, so
// `almoner check` still holds and the platform's books still add up.
import type { Deps } from '../../deps.ts';
import { conflict } from '../../shared/errors.ts';
import { recordAudit } from '../audit/index.ts';
import { bumpAuthEpoch } from '../keys/index.ts';
import { journalOfFund } from '../ledger/index.ts';
import { liveUserAndTwin } from '../users/index.ts';
import * as store from './privacy.store.ts';
import { removeMailFiles } from '../mail/index.ts';

/** The ids of a live user and of their sandbox twin, if any. Throws user_not_found. */
async function idsOf(deps: Deps, userId: number): Promise<number[]> {
  const { user, twin_id } = await liveUserAndTwin(deps, userId);
  if (user.status === 'deleted') throw conflict('user_deleted', `user ${userId} was deleted`);
  return twin_id === undefined ? [user.id] : [user.id, twin_id];
}

/** Everything stored about a live user and their sandbox twin, with their journal lines. Throws user_not_found. */
export async function exportUser(deps: Deps, userId: number) {
  const ids = await idsOf(deps, userId);
  const rows = await store.rowsOfUsers(deps.db, ids);
  const journal = [];
  for (const fund of rows.funds) journal.push(...(await journalOfFund(deps.db, fund.id)).map((line) => ({ fund_id: fund.id, ...line })));
  return { exported_at: deps.clock.now().toISOString(), user_id: userId, ...rows, journal };
}

/**
 * Forgets a live user and their sandbox twin, audited: every place personal-data.ts names is
 * pseudonymised or emptied in one transaction, then the .eml files of the mail it deleted are
 * removed. Throws user_not_found, conflict (user_deleted).
 */
export async function forgetUser(deps: Deps, userId: number, actor: string): Promise<void> {
  const ids = await idsOf(deps, userId);
  const at = deps.clock.now().toISOString();
  const mail = await deps.db.transaction().execute(async (trx) => {
    const deleted = await store.pseudonymise(trx, ids, await store.emailsOf(trx, ids), at);
    await bumpAuthEpoch(trx);
    await recordAudit(trx, { book: 'live', actor, action: 'user.forget', object_type: 'user', object_id: userId, before: null, after: { forgotten: true }, at });
    return deleted;
  });
  removeMailFiles(deps, mail);
}
