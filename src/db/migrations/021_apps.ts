// Login with Almoner (ADR 16): the apps users register, the connections a
// donor consents to (scopes, a monthly limit), what the OpenID Connect
// provider keeps between requests (codes, tokens, grants, sessions,
// interactions: one table, a JSON payload per artifact), and its keys. All in
// the platform's database, so that every node shares them.
import { sql, type Kysely } from 'kysely';
import type { Engine } from '../database.ts';
import { columnTypes } from '../types.ts';

export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  const t = columnTypes(engine);
  await db.schema
    .createTable('apps')
    .addColumn('id', t.id, (c) => t.idConstraints(c))
    .addColumn('client_id', 'text', (c) => c.notNull().unique())
    // The live user who registered it; a sandbox app (book 'test') acts for its donors' sandbox twins.
    .addColumn('owner_id', t.ref, (c) => c.notNull().references('users.id'))
    .addColumn('book', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    // A JSON array of exact redirect URIs.
    .addColumn('redirect_uris', 'text', (c) => c.notNull())
    .addColumn('logo_uri', 'text')
    // SHA-256 of the client secret, hex: the secret itself is shown once and kept nowhere.
    .addColumn('secret_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('disabled_at', 'text')
    .addColumn('disabled_reason', 'text')
    .execute();
  await db.schema.createIndex('apps_owner').on('apps').columns(['owner_id', 'id']).execute();

  await db.schema
    .createTable('app_connections')
    .addColumn('id', t.id, (c) => t.idConstraints(c))
    .addColumn('app_id', t.ref, (c) => c.notNull().references('apps.id'))
    // The live user who consented (the token's subject).
    .addColumn('user_id', t.ref, (c) => c.notNull().references('users.id'))
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('grant_id', 'text', (c) => c.notNull())
    // What the app may give from the fund per calendar month (UTC), if the donor set a limit.
    .addColumn('monthly_limit_cents', t.money)
    .addColumn('spent_month', 'text')
    .addColumn('spent_cents', t.money, (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text')
    .addColumn('revoked_at', 'text')
    .execute();
  await sql`create unique index app_connections_live on app_connections (app_id, user_id) where revoked_at is null`.execute(db);
  await db.schema.createIndex('app_connections_user').on('app_connections').columns(['user_id', 'id']).execute();

  await db.schema
    .createTable('oidc_artifacts')
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('grant_id', 'text')
    .addColumn('uid', 'text')
    // Epoch milliseconds; null never expires.
    .addColumn('expires_at', t.money)
    .addColumn('consumed_at', t.money)
    .addPrimaryKeyConstraint('oidc_artifacts_pk', ['kind', 'id'])
    .execute();
  await sql`create index oidc_artifacts_grant on oidc_artifacts (grant_id) where grant_id is not null`.execute(db);
  await sql`create index oidc_artifacts_uid on oidc_artifacts (uid) where uid is not null`.execute(db);
  await db.schema.createIndex('oidc_artifacts_expiry').on('oidc_artifacts').column('expires_at').execute();

  await db.schema
    .createTable('oidc_keys')
    .addColumn('id', t.id, (c) => t.idConstraints(c))
    // 'signing' (a private JWK, JSON) or 'cookie' (a random secret that signs the provider's cookies).
    .addColumn('use', 'text', (c) => c.notNull())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    // A retired signing key still verifies what it signed until it is removed; it signs nothing new.
    .addColumn('retired_at', 'text')
    .execute();
}
