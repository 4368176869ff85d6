// Every SQL statement of a user's data: reading all of it for an export, and
// pseudonymising it when they are forgotten. The ledger's amounts, and the
// records that carry them, are kept: only what names or describes a person goes.
import type { Db, Trx } from '../../db/database.ts';

/** Everything stored about a user (and their sandbox twin, when `ids` names it too), by table. */
export async function rowsOfUsers(db: Db, ids: readonly number[]) {
  const funds = await db.selectFrom('funds').selectAll().where('user_id', 'in', ids).orderBy('id').execute();
  const fundIds = funds.map((f) => f.id);
  return {
    users: await db.selectFrom('users').selectAll().where('id', 'in', ids).orderBy('id').execute(),
    account: await db.selectFrom('accounts').select(['user_id', 'email', 'created_at']).where('user_id', 'in', ids).execute(),
    funds,
    fund_causes: fundIds.length === 0 ? [] : await db.selectFrom('fund_causes').selectAll().where('fund_id', 'in', fundIds).execute(),
    api_keys: await db
      .selectFrom('api_keys')
      .select(['id', 'user_id', 'name', 'last4', 'mode', 'created_at', 'last_used_at', 'revoked_at'])
      .where('user_id', 'in', ids)
      .orderBy('id')
      .execute(),
    donations: await db.selectFrom('donations').selectAll().where('user_id', 'in', ids).orderBy('id').execute(),
    scheduled_donations: await db.selectFrom('scheduled_donations').selectAll().where('user_id', 'in', ids).orderBy('id').execute(),
    gifts_given: await db.selectFrom('gifts').selectAll().where('user_id', 'in', ids).orderBy('id').execute(),
    gifts_received: await db.selectFrom('gifts').selectAll().where('recipient_user_id', 'in', ids).orderBy('id').execute(),
    contributions: await db.selectFrom('contributions').selectAll().where('user_id', 'in', ids).orderBy('id').execute(),
    follows: await db
      .selectFrom('follows')
      .selectAll()
      .where((eb) => eb.or([eb('follower_id', 'in', ids), eb('followee_id', 'in', ids)]))
      .execute(),
    events: await db.selectFrom('events').selectAll().where('user_id', 'in', ids).orderBy('id').execute(),
    // The apps they registered (never a secret's hash) and the apps they connected.
    apps: await db
      .selectFrom('apps')
      .select(['id', 'client_id', 'book', 'name', 'redirect_uris', 'logo_uri', 'created_at', 'disabled_at', 'disabled_reason'])
      .where('owner_id', 'in', ids)
      .orderBy('id')
      .execute(),
    app_connections: await db
      .selectFrom('app_connections as c')
      .innerJoin('apps as a', 'a.id', 'c.app_id')
      .select([
        'c.id',
        'a.client_id',
        'a.name as app_name',
        'c.scopes',
        'c.monthly_limit_cents',
        'c.spent_month',
        'c.spent_cents',
        'c.created_at',
        'c.last_used_at',
        'c.revoked_at',
      ])
      .where('c.user_id', 'in', ids)
      .orderBy('c.id')
      .execute(),
  };
}

/** The person's sign-in address, read before pseudonymise deletes it. */
export async function emailsOf(trx: Trx, ids: readonly number[]): Promise<string[]> {
  return (await trx.selectFrom('accounts').select('email').where('user_id', 'in', ids).execute()).map((r) => r.email);
}

const REDACTED_PAYLOAD = JSON.stringify({ redacted: 'a person this named was forgotten' });

/**
 * What they gave, hidden: their donations, private now, count for no one else (the lists'
 * meta.count; almoner check recounts it), and their contributions' metadata is removed.
 */
async function hideGiving(trx: Trx, ids: readonly number[], at: string): Promise<void> {
  await trx.updateTable('donation_counts').set({ public_total: 0 }).where('user_id', 'in', ids).execute();
  await trx.updateTable('contributions').set({ metadata: null }).where('user_id', 'in', ids).execute();
  await trx.updateTable('fundraisers').set({ ended_at: at }).where('user_id', 'in', ids).where('ended_at', 'is', null).execute();
  await trx.updateTable('fundraisers').set({ title: 'Fundraiser', story: '', metadata: null, updated_at: at }).where('user_id', 'in', ids).execute();
}

/**
 * Pseudonymises the users `ids` (a person and their sandbox twin), whose sign-in addresses are
 * `emails`, in every place personal-data.ts names: their names, pictures, city, notes, the names
 * and messages of the gifts they gave and received (or that were sent to their address), their
 * sign-in, sessions, reset links, invitations, failed sign-ins and follows; the mail sent to them or
 * about their objects (the .eml files are the caller's, by the ids returned); their webhook
 * endpoints' addresses, and every stored webhook payload about them; the apps they registered
 * (names, addresses) and the provider's sessions of them; cached Idempotency-Key answers. Keys are
 * revoked; recurring donations stop; the apps they connected lose every token at once and the
 * apps they registered are disabled. Amounts, statuses, the journal and receipts stay.
 * Returns the ids of the mail deleted.
 */
export async function pseudonymise(trx: Trx, ids: readonly number[], emails: readonly string[], at: string): Promise<number[]> {
  for (const id of ids) {
    await trx
      .updateTable('users')
      .set({ name: 'Deleted user', slug: `deleted-${id}`, city: '', avatar_url: null, cover_image_url: null, visible: 0, status: 'deleted' })
      .where('id', '=', id)
      .execute();
  }
  await trx.updateTable('funds').set({ name: 'Fund of a deleted user', summary: '' }).where('user_id', 'in', ids).execute();
  await trx
    .deleteFrom('fund_causes')
    .where('fund_id', 'in', (eb) => eb.selectFrom('funds').select('id').where('user_id', 'in', ids))
    .execute();
  await trx.deleteFrom('accounts').where('user_id', 'in', ids).execute();
  await trx.deleteFrom('web_sessions').where('user_id', 'in', ids).execute();
  await trx
    .deleteFrom('follows')
    .where((eb) => eb.or([eb('follower_id', 'in', ids), eb('followee_id', 'in', ids)]))
    .execute();
  await trx.updateTable('api_keys').set({ revoked_at: at, name: 'revoked (user deleted)' }).where('user_id', 'in', ids).where('revoked_at', 'is', null).execute();
  await trx.updateTable('api_keys').set({ name: 'revoked (user deleted)' }).where('user_id', 'in', ids).execute();
  const grants = trx.selectFrom('app_connections').select('grant_id').where('user_id', 'in', ids).where('revoked_at', 'is', null);
  await trx
    .deleteFrom('oidc_artifacts')
    .where((eb) => eb.or([eb('grant_id', 'in', grants), eb.and([eb('kind', '=', 'Grant'), eb('id', 'in', grants)])]))
    .execute();
  await trx.updateTable('app_connections').set({ revoked_at: at, updated_at: at }).where('user_id', 'in', ids).where('revoked_at', 'is', null).execute();
  await trx
    .updateTable('apps')
    .set({ disabled_at: at, disabled_reason: "its owner's account was deleted" })
    .where('owner_id', 'in', ids)
    .where('disabled_at', 'is', null)
    .execute();
  await trx
    .updateTable('donations')
    .set({ note: null, private_memo: null, designation: null, dedication: null, metadata: null, share: 'anonymous', visibility: 'private' })
    .where('user_id', 'in', ids)
    .execute();
  await hideGiving(trx, ids, at);
  await trx.updateTable('scheduled_donations').set({ note: null, status: 'cancelled', updated_at: at }).where('user_id', 'in', ids).where('status', '=', 'active').execute();
  await trx.updateTable('scheduled_donations').set({ note: null, metadata: null }).where('user_id', 'in', ids).execute();
  await trx.updateTable('gifts').set({ name: 'Deleted', email: null, message: null, metadata: null }).where('user_id', 'in', ids).execute();
  // Gifts others gave them, or sent to their address: the name and message are about them.
  const received = await trx
    .selectFrom('gifts')
    .select('id')
    .where((eb) => eb.or([eb('recipient_user_id', 'in', ids), ...(emails.length === 0 ? [] : [eb('email', 'in', emails)])]))
    .execute();
  const receivedIds = received.map((g) => g.id);
  // A gift they claimed became the giver's donation, noted with their name.
  const claimedDonations =
    receivedIds.length === 0
      ? []
      : (await trx.selectFrom('gifts').select('donation_id').where('id', 'in', receivedIds).where('donation_id', 'is not', null).execute()).map((g) => Number(g.donation_id));
  if (receivedIds.length > 0) await trx.updateTable('gifts').set({ name: 'Deleted', email: null, message: null }).where('id', 'in', receivedIds).execute();
  if (claimedDonations.length > 0) await trx.updateTable('donations').set({ note: 'Gift to a deleted user' }).where('id', 'in', claimedDonations).execute();
  // Every event about them: theirs, and their givers' of the gifts they received and of what those became.
  const events = (
    await trx
      .selectFrom('events')
      .select('id')
      .where((eb) =>
        eb.or([
          eb('user_id', 'in', ids),
          ...(receivedIds.length === 0 ? [] : [eb.and([eb('object_type', '=', 'gift'), eb('object_id', 'in', receivedIds)])]),
          ...(claimedDonations.length === 0 ? [] : [eb.and([eb('object_type', '=', 'donation'), eb('object_id', 'in', claimedDonations)])]),
        ]),
      )
      .execute()
  ).map((e) => e.id);
  // Mail to them, or about them.
  const mail = (
    await trx
      .selectFrom('mail_outbox')
      .select('id')
      .where((eb) => eb.or([...(emails.length === 0 ? [] : [eb('recipient', 'in', emails)]), ...(events.length === 0 ? [] : [eb('event_id', 'in', events)])]))
      .execute()
  ).map((m) => m.id);
  if (mail.length > 0) await trx.deleteFrom('mail_outbox').where('id', 'in', mail).execute();
  // Webhooks: their endpoints' addresses and every stored payload about them (theirs, or a giver's about their gift).
  const endpoints = trx.selectFrom('webhook_endpoints').select('id').where('user_id', 'in', ids);
  await trx.updateTable('webhook_attempts').set({ error: null }).where('endpoint_id', 'in', endpoints).execute();
  await trx
    .updateTable('webhook_deliveries')
    .set({ payload: REDACTED_PAYLOAD, status: 'failed', claimed_until: null })
    .where((eb) => eb.or([eb('endpoint_id', 'in', endpoints), ...(events.length === 0 ? [] : [eb('event_id', 'in', events)])]))
    .where('status', '=', 'pending')
    .execute();
  await trx
    .updateTable('webhook_deliveries')
    .set({ payload: REDACTED_PAYLOAD })
    .where((eb) => eb.or([eb('endpoint_id', 'in', endpoints), ...(events.length === 0 ? [] : [eb('event_id', 'in', events)])]))
    .execute();
  await trx
    .updateTable('webhook_endpoints')
    .set({ url: 'https://forgotten.invalid/', description: '', disabled: 1, disabled_reason: "its owner's account was deleted", updated_at: at })
    .where('user_id', 'in', ids)
    .execute();
  await trx.updateTable('webhook_endpoints').set({ deleted_at: at }).where('user_id', 'in', ids).where('deleted_at', 'is', null).execute();
  await trx.updateTable('apps').set({ name: 'Deleted app', redirect_uris: '[]', logo_uri: null }).where('owner_id', 'in', ids).execute();
  for (const id of ids) {
    await trx.deleteFrom('oidc_artifacts').where('kind', 'in', ['Session', 'Interaction']).where('payload', 'like', `%"accountId":"${id}"%`).execute();
  }
  await trx.deleteFrom('idempotency_keys').where('user_id', 'in', ids).execute();
  await trx.deleteFrom('password_resets').where('user_id', 'in', ids).execute();
  await trx.deleteFrom('address_confirmations').where('user_id', 'in', ids).execute();
  await trx.deleteFrom('invitations').where('user_id', 'in', ids).execute();
  await trx.deleteFrom('charity_claims').where('user_id', 'in', ids).execute();
  // Shared funds (rules §20): their memberships and the invitations to them end, and so do the other
  // members' of their own fund (it can no longer be acted on); those members act on their own funds again.
  const ownFunds = trx.selectFrom('funds').select('id').where('user_id', 'in', ids);
  const ending = await trx
    .selectFrom('fund_members')
    .select(['id', 'fund_id', 'user_id'])
    .where('status', 'in', ['invited', 'active'])
    .where((eb) => eb.or([eb('user_id', 'in', ids), eb('fund_id', 'in', ownFunds), ...(emails.length === 0 ? [] : [eb('email', 'in', emails)])]))
    .execute();
  const endingIds = ending.map((m) => m.id);
  if (endingIds.length > 0) {
    await trx.updateTable('fund_members').set({ status: 'removed', ended_at: at, ended_by: 'forgotten', token_hash: null }).where('id', 'in', endingIds).execute();
    await trx.updateTable('member_roles').set({ until: at }).where('member_id', 'in', endingIds).where('until', 'is', null).execute();
    const others = [...new Set(ending.flatMap((m) => (m.user_id === null || ids.includes(m.user_id) ? [] : [m.user_id])))];
    for (const other of others) {
      const own = await trx.selectFrom('funds').select('id').where('user_id', '=', other).orderBy('id').limit(1).executeTakeFirst();
      if (own !== undefined) await trx.updateTable('users').set({ current_fund_id: own.id }).where('id', '=', other).where('current_fund_id', 'in', ownFunds).execute();
    }
  }
  if (emails.length > 0) {
    await trx.updateTable('fund_members').set({ email: null }).where('email', 'in', emails).execute();
    await trx.deleteFrom('successor_lines').where('email', 'in', emails).execute();
  }
  await trx.updateTable('fund_members').set({ email: null }).where('user_id', 'in', ids).execute();
  await trx.updateTable('death_records').set({ document_reference: 'forgotten' }).where('user_id', 'in', ids).execute();
  if (emails.length > 0) await trx.deleteFrom('sign_in_failures').where('email', 'in', emails).execute();
  // What operators once recorded about them (a user's name and slug at creation) goes too.
  await trx
    .updateTable('audit_log')
    .set({ before: null, after: JSON.stringify({ pseudonymised: true }) })
    .where('object_type', '=', 'user')
    .where('object_id', 'in', ids)
    .execute();
  return mail;
}
