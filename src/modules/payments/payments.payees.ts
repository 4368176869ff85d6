// An organisation's bank details for ACH (docs/rules.md §17, §18): the routing
// number checked by its check digit, the account number sealed at rest with
// PAYEE_DATA_KEY and shown only masked, every change audited and e-mailed to
// the organisation's claimants (but the one who made it), and ACH to new
// details only after the cooling-off period (checks meanwhile); suspended
// when a return says the account cannot take credits.
import type { Deps } from '../../deps.ts';
import type { Trx } from '../../db/database.ts';
import type { Book } from '../../shared/book.ts';
import { conflict, fieldErrors, type FieldError } from '../../shared/errors.ts';
import { seal } from '../../shared/sealed.ts';
import { recordAudit } from '../audit/index.ts';
import { claimantAddresses } from '../charities/index.ts';
import { messages, queueMail } from '../mail/index.ts';
import { charityByEin, normalizeEin } from '../nonprofits/index.ts';
import { isRoutingNumber } from './nacha.ts';
import { ACH_RETURNS, addDays, maskedAccount, normalizeAccountNumber } from './payments.ts';
import * as store from './payments.store.ts';

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
): Promise<{ non_profit: string; routing: string; account: string; usable_from: string }> {
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
  const unseen = await deps.db.transaction().execute(async (trx) => {
    const nonProfitId = view.id;
    const before = await store.activePayeeAccount(trx, nonProfitId);
    const { actor } = who;
    const id = await store.replacePayeeAccount(trx, {
      non_profit_id: nonProfitId,
      routing: input.routing,
      account_sealed: seal(key, account as string),
      account_last4: (account as string).slice(-4),
      account_type: input.account_type,
      holder,
      created_at: at,
      created_by: actor,
      usable_from: usableFrom,
    });
    const shown = (a: { routing: string; account_last4: string } | undefined) => (a === undefined ? null : { routing: a.routing, account: maskedAccount(a.account_last4) });
    await recordAudit(trx, {
      book: 'live',
      actor,
      action: 'payee_account.set',
      object_type: 'payee_account',
      object_id: id,
      before: shown(before),
      after: { ...shown({ routing: input.routing, account_last4: (account as string).slice(-4) }), usable_from: usableFrom },
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
    if (who.userId === undefined || told.length > 0) return false;
    const operator = deps.config.operatorEmail;
    if (operator !== undefined) {
      const notice = messages.bankDetailsChangedUnseen({ nonProfit: view.name, ein: view.ein, account: maskedAccount((account as string).slice(-4)), by: who.name, usableFrom });
      await queueMail(trx, [{ ...notice, kind: 'bank_details_unseen', recipient: operator, event_id: null }], at);
    }
    return true;
  });
  if (unseen) deps.metrics.counters.payeeChangedUnseen();
  return { non_profit: view.name, routing: input.routing, account: maskedAccount((account as string).slice(-4)), usable_from: usableFrom };
}

/**
 * Suspends the bank details a returned payment went to (rules §17): audited, and the organisation's
 * claimants and the operators (OPERATOR_EMAIL) told, in the return's transaction. Live book only
 * tells anyone; a sandbox return suspends quietly.
 */
export async function suspendBankDetails(deps: Deps, trx: Trx, book: Book, payment: store.PaymentRow, code: string, actor: string, at: string): Promise<void> {
  const accountId = Number(payment.payee_account_id);
  if (!(await store.suspendPayeeAccount(trx, accountId))) return;
  const account = await store.payeeAccountById(trx, accountId);
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
  if (book !== 'live') return;
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
