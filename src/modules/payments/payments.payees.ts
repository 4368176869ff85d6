// An organisation's bank details for ACH (docs/rules.md §17, §18): the routing
// number checked by its check digit, the account number sealed at rest with
// PAYEE_DATA_KEY and shown only masked, every change audited and e-mailed to
// the organisation's claimants (but the one who made it), and ACH to new
// details only after the cooling-off period (checks meanwhile); suspended
// when a return says the account cannot take credits.
import type { Deps } from '../../deps.ts';
import type { Trx } from '../../db/database.ts';
import type { Book } from '../../shared/book.ts';
import { AppError, conflict, fieldErrors, type FieldError } from '../../shared/errors.ts';
import { assert } from '../../shared/assert.ts';
import { samePerson } from '../../shared/operators.ts';
import { seal } from '../../shared/sealed.ts';
import { recordAudit } from '../audit/index.ts';
import { claimantAddresses } from '../charities/index.ts';
import { messages, queueMail } from '../mail/index.ts';
import { charityByEin, normalizeEin } from '../nonprofits/index.ts';
import { isRoutingNumber } from './nacha.ts';
import { ACH_RETURNS, addDays, maskedAccount, normalizeAccountNumber } from './payments.ts';
import { ACH_CHANGES } from './payments.returns.ts';
import * as store from './payments.store.ts';
import * as payees from './payees.store.ts';

/**
 * Records an organisation's bank details for ACH (the routing number checked by its check digit,
 * the account number sealed with PAYEE_DATA_KEY), replacing any it had; ACH to them waits out
 * PAYEE_COOLING_OFF_DAYS, checks meanwhile. Audited (masked), and e-mailed to the organisation's
 * approved claimants but the one who made the change (`who.userId`). Throws non_profit_not_found,
 * validation_failed, payee_key_not_configured.
 */
export async function setPayeeAccount(
  deps: Deps,
  einText: string,
  input: { routing: string; account: string; account_type: string; holder: string },
  who: { actor: string; name: string; userId?: number },
): Promise<PayeeAccountSet> {
  const key = deps.config.payments.payeeKey;
  if (key === undefined) throw conflict('payee_key_not_configured', 'set PAYEE_DATA_KEY (or PAYEE_DATA_KEY_FILE): bank details are sealed with it');
  const ein = normalizeEin(einText);
  const problems: FieldError[] = [];
  if (ein === null) problems.push({ field: 'ein', code: 'validation_failed', message: 'must be an EIN: 9 digits, or 2-7 with a dash' });
  if (!isRoutingNumber(input.routing)) problems.push({ field: 'routing', code: 'validation_failed', message: 'must be a 9-digit routing number whose check digit is right' });
  const account = normalizeAccountNumber(input.account);
  if (account === null) problems.push({ field: 'account', code: 'validation_failed', message: 'must be 4 to 17 digits' });
  if (input.account_type !== 'checking' && input.account_type !== 'savings')
    problems.push({ field: 'account_type', code: 'validation_failed', message: 'must be checking or savings' });
  const holder = input.holder.trim();
  if (holder === '' || holder.length > 100) problems.push({ field: 'holder', code: 'validation_failed', message: "is the account holder's name (1 to 100 characters)" });
  if (problems.length > 0) throw fieldErrors(problems);
  const { view } = await charityByEin(deps, ein as string);
  const at = deps.clock.now().toISOString();
  const usableFrom = addDays(at.slice(0, 10), deps.config.payments.payeeCoolingOffDays);
  // Details an operator typed wait for a second operator (PAYMENTS_TWO_OPERATORS); an organisation's own people change their own.
  const status = who.userId === undefined && deps.config.payments.twoOperators === true ? 'pending' : 'active';
  const { unseen, id } = await deps.db.transaction().execute(async (trx) => {
    const nonProfitId = view.id;
    const before = await payees.activePayeeAccount(trx, nonProfitId);
    const { actor } = who;
    const id = await payees.replacePayeeAccount(
      trx,
      {
        non_profit_id: nonProfitId,
        routing: input.routing,
        account_sealed: seal(key, account as string),
        account_last4: (account as string).slice(-4),
        account_type: input.account_type,
        holder,
        created_at: at,
        created_by: actor,
        usable_from: usableFrom,
      },
      status,
    );
    const shown = (a: { routing: string; account_last4: string } | undefined) => (a === undefined ? null : { routing: a.routing, account: maskedAccount(a.account_last4) });
    await recordAudit(trx, {
      book: 'live',
      actor,
      action: 'payee_account.set',
      object_type: 'payee_account',
      object_id: id,
      before: shown(before),
      after: { ...shown({ routing: input.routing, account_last4: (account as string).slice(-4) }), usable_from: usableFrom, status },
      at,
    });
    const url = `${deps.config.publicUrl}/charities/${view.ein}/manage`;
    const told = await claimantAddresses(trx, nonProfitId, who.userId ?? null);
    const message = messages.bankDetailsChanged({ nonProfit: view.name, account: maskedAccount((account as string).slice(-4)), by: who.name, usableFrom, url });
    await queueMail(
      trx,
      told.map((recipient) => ({ ...message, kind: 'bank_details_changed', recipient, event_id: null })),
      at,
    );
    // A claimant who is the organisation's only one changed where its money goes, and no one else of it
    // saw: the operators are told (mail and metric), since a taken-over account would look just so.
    if (who.userId === undefined || told.length > 0) return { unseen: false, id };
    const operator = deps.config.operatorEmail;
    if (operator !== undefined) {
      const notice = messages.bankDetailsChangedUnseen({ nonProfit: view.name, ein: view.ein, account: maskedAccount((account as string).slice(-4)), by: who.name, usableFrom });
      await queueMail(trx, [{ ...notice, kind: 'bank_details_unseen', recipient: operator, event_id: null }], at);
    }
    return { unseen: true, id };
  });
  if (unseen) deps.metrics.counters.payeeChangedUnseen();
  return { id, status, non_profit: view.name, routing: input.routing, account: maskedAccount((account as string).slice(-4)), usable_from: usableFrom };
}

/** Bank details as recorded: `pending` until a second operator approves details an operator typed. */
export interface PayeeAccountSet {
  id: number;
  status: 'active' | 'pending';
  non_profit: string;
  routing: string;
  account: string;
  usable_from: string;
}

/**
 * A second operator puts bank details an operator typed in force (PAYMENTS_TWO_OPERATORS): not the
 * one who typed them (403 same_operator), replacing the organisation's others; audited. ACH to
 * them still waits out the cooling-off counted from the change. Throws conflict
 * (payee_account_not_pending).
 */
export async function approvePayeeAccount(deps: Deps, id: number, actor: string): Promise<PayeeAccountSet> {
  const at = deps.clock.now().toISOString();
  return await deps.db.transaction().execute(async (trx) => {
    const row = await payees.payeeAccountById(trx, id);
    if (row === undefined || row.status !== 'pending') throw conflict('payee_account_not_pending', `no bank details ${id} wait for approval`);
    if (samePerson(row.created_by, actor)) throw new AppError('forbidden', 'same_operator', `a second operator approves bank details: ${row.created_by} typed these`);
    assert(await payees.activatePayeeAccount(trx, id, actor), 'waiting details are approved once');
    await recordAudit(trx, {
      book: 'live',
      actor,
      action: 'payee_account.approved',
      object_type: 'payee_account',
      object_id: id,
      before: { status: 'pending', created_by: row.created_by },
      after: { status: 'active', approved_by: actor },
      at,
    });
    const [org] = await store.organisationsToScreen(trx, [Number(row.non_profit_id)]);
    return { id, status: 'active', non_profit: org?.name ?? '', routing: row.routing, account: maskedAccount(row.account_last4), usable_from: row.usable_from };
  });
}

/**
 * Suspends the bank details a returned payment went to (rules §17): audited, and the organisation's
 * claimants and the operators (OPERATOR_EMAIL) told, in the return's transaction. Live book
 * only: the details are the organisation's in both books, so a sandbox return leaves them alone.
 */
export async function suspendBankDetails(deps: Deps, trx: Trx, book: Book, payment: store.PaymentRow, code: string, actor: string, at: string): Promise<void> {
  if (book !== 'live') return;
  const accountId = Number(payment.payee_account_id);
  if (!(await payees.suspendPayeeAccount(trx, accountId))) return;
  const account = await payees.payeeAccountById(trx, accountId);
  await recordAudit(trx, {
    book,
    actor,
    action: 'payee_account.suspended',
    object_type: 'payee_account',
    object_id: accountId,
    before: { status: 'active' },
    after: { status: 'suspended', return_code: code, payment_id: Number(payment.id) },
    at,
  });
  const message = messages.bankDetailsSuspended({
    nonProfit: payment.payee,
    account: maskedAccount(account?.account_last4 ?? '????'),
    why: `${code}: ${ACH_RETURNS[code]?.words ?? ''}`,
  });
  const recipients = [...(await claimantAddresses(trx, payment.non_profit_id, null)), ...(deps.config.operatorEmail === undefined ? [] : [deps.config.operatorEmail])];
  await queueMail(
    trx,
    recipients.map((recipient) => ({ ...message, kind: 'bank_details_suspended', recipient, event_id: null })),
    at,
  );
}

/** Why a notification of change's corrected data cannot be applied, or undefined (rules §17). */
export function correctionProblem(code: string, corrected: string): string | undefined {
  const change = ACH_CHANGES[code];
  if (change === undefined) return `the change code ${code} is not one NACHA defines: ${Object.keys(ACH_CHANGES).join(', ')}`;
  const fix = change.read?.(corrected);
  if (fix === undefined) return undefined;
  if (fix.routing !== undefined && !isRoutingNumber(fix.routing)) return `${code}'s corrected routing number ${JSON.stringify(fix.routing)} is not one`;
  if (fix.account !== undefined && normalizeAccountNumber(fix.account) === null) return `${code}'s corrected account number is not 4 to 17 digits`;
  if ('accountType' in fix && fix.accountType === undefined) return `${code}'s corrected transaction code is not one of a checking or savings account`;
  return undefined;
}

/**
 * Applies a notification of change to the bank details `payment` went to (rules §17): a code with
 * corrected data (C01-C03, C05-C07) puts corrected details in force at once (the receiving bank
 * gave them: no cooling-off, no second operator), replacing the old ones; any other code is
 * noted (even about details replaced since). Audited, and the organisation's claimants and
 * OPERATOR_EMAIL told. The live book only: a sandbox file changes no one's details. Returns false
 * when nothing was done: the sandbox, a correction of details replaced since, or corrected
 * already. Check correctionProblem first.
 */
export async function applyCorrection(deps: Deps, trx: Trx, book: Book, payment: store.PaymentRow, code: string, corrected: string, actor: string): Promise<boolean> {
  if (book !== 'live' || payment.payee_account_id === null) return false;
  const old = await payees.payeeAccountById(trx, Number(payment.payee_account_id));
  const change = ACH_CHANGES[code] as NonNullable<(typeof ACH_CHANGES)[string]>;
  const fix = change.read?.(corrected);
  // A correction applies to details still in force; a notice is noted whatever became of them.
  if (old === undefined || (fix !== undefined && old.status !== 'active')) return false;
  const at = deps.clock.now().toISOString();
  const shown = (a: { routing: string; account_last4: string; account_type: string }) => ({
    routing: a.routing,
    account: maskedAccount(a.account_last4),
    account_type: a.account_type,
  });
  let after: ReturnType<typeof shown> | null = null;
  let id = Number(old.id);
  if (fix !== undefined) {
    const account = fix.account === undefined ? undefined : (normalizeAccountNumber(fix.account) as string);
    const key = deps.config.payments.payeeKey;
    if (account !== undefined && key === undefined) throw conflict('payee_key_not_configured', 'set PAYEE_DATA_KEY (or PAYEE_DATA_KEY_FILE): bank details are sealed with it');
    const next = {
      routing: fix.routing ?? old.routing,
      account_sealed: account === undefined ? old.account_sealed : seal(key as Buffer, account),
      account_last4: account === undefined ? old.account_last4 : account.slice(-4),
      account_type: fix.accountType ?? old.account_type,
    };
    if (next.routing === old.routing && next.account_sealed === old.account_sealed && next.account_type === old.account_type) return false;
    const day = at.slice(0, 10);
    id = await payees.replacePayeeAccount(trx, {
      ...next,
      non_profit_id: old.non_profit_id,
      holder: old.holder,
      created_at: at,
      created_by: `${actor} (${code})`,
      usable_from: day,
    });
    after = shown(next);
  }
  await recordAudit(trx, {
    book,
    actor,
    action: fix === undefined ? 'payee_account.change_noted' : 'payee_account.corrected',
    object_type: 'payee_account',
    object_id: id,
    before: shown(old),
    after: { ...(after ?? {}), change_code: code, payment_id: Number(payment.id) },
    at,
  });
  const message = messages.bankDetailsCorrected({
    nonProfit: payment.payee,
    account: maskedAccount(old.account_last4),
    why: `${code}: ${change.words}`,
    changed: fix !== undefined,
  });
  const recipients = [...(await claimantAddresses(trx, payment.non_profit_id, null)), ...(deps.config.operatorEmail === undefined ? [] : [deps.config.operatorEmail])];
  await queueMail(
    trx,
    recipients.map((recipient) => ({ ...message, kind: 'bank_details_corrected', recipient, event_id: null })),
    at,
  );
  return true;
}
