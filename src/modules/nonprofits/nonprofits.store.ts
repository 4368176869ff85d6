// Every SQL statement of the non-profit directory.
import type { Db, Trx } from '../../db/database.ts';
import type { Selectable } from 'kysely';
import type { Database, NonProfitsTable } from '../../db/schema.ts';
import { prepared } from '../../db/prepared.ts';
import { CAUSES } from './causes.ts';
import { indexWords } from './nonprofits.ts';

export interface NonProfit {
  id: number;
  ein: string;
  name: string;
  website: string | null;
  city: string;
  state: string;
  latitude: number | null;
  longitude: number | null;
  cause_id: number;
  eligible: boolean;
  public_path: string;
  /** A later IRS snapshot no longer lists it: it cannot receive donations. */
  removed: boolean;
  /** The BMF FOUNDATION code (04: private non-operating foundation; 24: Type III supporting, not functionally integrated). */
  foundation: string;
  /** What the last screening against the due diligence lists found (nonprofits.ts DILIGENCE). */
  diligence: string;
}

const COLUMNS = ['id', 'ein', 'name', 'website', 'city', 'state', 'latitude', 'longitude', 'cause_id', 'eligible', 'slug', 'removed_at', 'foundation', 'diligence'] as const;

type Row = Pick<Selectable<NonProfitsTable>, Exclude<(typeof COLUMNS)[number], 'removed_at'>> & { removed_at?: string | null };

export function toNonProfit(row: Row): NonProfit {
  return {
    id: row.id,
    ein: row.ein,
    name: row.name,
    website: row.website,
    city: row.city,
    state: row.state,
    latitude: row.latitude,
    longitude: row.longitude,
    cause_id: row.cause_id,
    eligible: row.eligible === 1,
    public_path: row.slug,
    removed: row.removed_at !== undefined && row.removed_at !== null,
    foundation: row.foundation,
    diligence: row.diligence,
  };
}

export async function seedCauses(db: Db): Promise<void> {
  for (const cause of CAUSES) {
    await db
      .insertInto('causes')
      .values(cause)
      .onConflict((oc) =>
        oc.column('id').doUpdateSet({
          name: cause.name,
          slug: cause.slug,
          color: cause.color,
          ntee_groups: cause.ntee_groups,
        }),
      )
      .execute();
  }
}

const byEinQuery = prepared<Database, Row, { ein: string }>((db, p) => db.selectFrom('non_profits').select(COLUMNS).where('ein', '=', p('ein')));

export async function findByEin(db: Db | Trx, ein: string): Promise<NonProfit | undefined> {
  const [row] = await byEinQuery(db, { ein });
  return row === undefined ? undefined : toNonProfit(row);
}

/** The IRS file's details beyond a card and a search's needs (migration 020). */
export const IRS_COLUMNS = ['street', 'ruling', 'subsection', 'foundation', 'affiliation', 'organization', 'filing_req', 'deductibility', 'status', 'revenue_amt'] as const;
const DETAIL_COLUMNS = [...IRS_COLUMNS, 'city', 'state', 'zip', 'ntee_code', 'income_amt', 'asset_amt', 'tax_period', 'removed_at'] as const;

export type DetailRow = Pick<Selectable<NonProfitsTable>, (typeof DETAIL_COLUMNS)[number]>;

/** What the IRS file says of one organisation beyond its card (a charity's page). */
export async function irsDetailsOf(db: Db, id: number): Promise<DetailRow | undefined> {
  return await db.selectFrom('non_profits').select(DETAIL_COLUMNS).where('id', '=', id).executeTakeFirst();
}

export type CardRow = Pick<Selectable<NonProfitsTable>, 'id' | 'ein' | 'name' | 'website' | 'city' | 'state' | 'cause_id' | 'slug'>;

/** What a donation shows of each of these organisations (see cards.ts). */
export async function cardRows(db: Db, ids: readonly number[]): Promise<CardRow[]> {
  const rows: CardRow[] = [];
  for (let i = 0; i < ids.length; i += 500) {
    rows.push(
      ...(await db
        .selectFrom('non_profits')
        .select(['id', 'ein', 'name', 'website', 'city', 'state', 'cause_id', 'slug'])
        .where('id', 'in', ids.slice(i, i + 500))
        .execute()),
    );
  }
  return rows;
}

/**
 * Raised with every new organisation and every change of one's fields, in its transaction: nodes
 * then drop their cards and the directory they hold in memory.
 */
export async function bumpRecordsEpoch(trx: Db | Trx): Promise<void> {
  await trx
    .updateTable('directory_epoch')
    .set((eb) => ({ records_epoch: eb('records_epoch', '+', 1) }))
    .where('id', '=', 1)
    .execute();
}

export async function findByEins(db: Db | Trx, eins: readonly string[]): Promise<NonProfit[]> {
  if (eins.length === 0) return [];
  // One EIN (most batches of donations): findByEin's prepared statement, planned once per connection.
  if (eins.length === 1) {
    const found = await findByEin(db, eins[0] as string);
    return found === undefined ? [] : [found];
  }
  const rows = await db.selectFrom('non_profits').select(COLUMNS).where('ein', 'in', eins).execute();
  return rows.map(toNonProfit);
}

/** What the IRS data says of an organisation; the importer adds where and when it saw it. */
export type NonProfitInput = Omit<NonProfitsTable, 'id' | 'created_at' | 'updated_at' | 'source' | 'last_seen_run' | 'removed_at' | 'diligence'>;

/** The IRS details of an organisation not read from an IRS file (added by hand, or in tests): none known. */
export const NO_IRS_DETAILS = Object.fromEntries(IRS_COLUMNS.map((c) => [c, c === 'revenue_amt' ? 0 : ''])) as Pick<NonProfitInput, (typeof IRS_COLUMNS)[number]>;

/** Rewrites an organisation's index words (after an insert or a name or city change). */
async function replaceWords(db: Db | Trx, nonProfitId: number, name: string, city: string, size: number): Promise<void> {
  await db.deleteFrom('non_profit_words').where('non_profit_id', '=', nonProfitId).execute();
  const words = indexWords(name, city);
  if (words.length > 0)
    await db
      .insertInto('non_profit_words')
      .values(words.map((w) => ({ ...w, non_profit_id: nonProfitId, size })))
      .execute();
}

/** Inserts or updates by EIN; returns 'added', 'updated' or 'unchanged'. */
export async function upsert(db: Db | Trx, input: NonProfitInput, at: string): Promise<'added' | 'updated' | 'unchanged'> {
  const existing = await db.selectFrom('non_profits').selectAll().where('ein', '=', input.ein).executeTakeFirst();
  if (existing === undefined) {
    const row = await db
      .insertInto('non_profits')
      .values({ ...input, source: '', created_at: at, updated_at: at })
      .returning('id')
      .executeTakeFirstOrThrow();
    await replaceWords(db, row.id, input.name, input.city, input.income_amt);
    // Searches find it from now on: nodes drop the directory they hold.
    await bumpRecordsEpoch(db);
    return 'added';
  }
  const changed = (Object.keys(input) as Array<keyof NonProfitInput>).some((k) => existing[k] !== input[k]);
  if (!changed) return 'unchanged';
  await db
    .updateTable('non_profits')
    .set({ ...input, updated_at: at })
    .where('id', '=', existing.id)
    .execute();
  await bumpRecordsEpoch(db);
  if (existing.name !== input.name || existing.city !== input.city || existing.income_amt !== input.income_amt) {
    await replaceWords(db, existing.id, input.name, input.city, input.income_amt);
  }
  return 'updated';
}

/** The EINs an import source brought, in import order, with whether each may receive donations. */
export async function einsOfSource(db: Db, source: string): Promise<{ ein: string; eligible: boolean }[]> {
  const rows = await db.selectFrom('non_profits').select(['ein', 'eligible']).where('source', '=', source).orderBy('id').execute();
  return rows.map((r) => ({ ein: r.ein, eligible: r.eligible === 1 }));
}

const recordsEpochQuery = prepared<Database, { records_epoch: number }, Record<string, never>>((db) =>
  db.selectFrom('directory_epoch').select('records_epoch').where('id', '=', 1),
);

/**
 * Raised by every change of an organisation's shown fields or of whether it
 * may receive donations (cards.ts forgets its cards, donation rounds the
 * recipients they remember, when it moves).
 */
export async function recordsEpoch(db: Db): Promise<number> {
  return (await recordsEpochQuery(db, {}))[0]?.records_epoch ?? 0;
}

/** PostgreSQL, a condition of a guarded write (db/bulk.ts runIfAllRows): the records epoch is still `epoch`. */
export function recordsEpochIs(epoch: number): (params: unknown[]) => string {
  return (params) => {
    params.push(epoch);
    return `(select records_epoch from directory_epoch where id = 1) = cast($${params.length} as bigint)`;
  };
}

/** How many organisations the directory holds (not marked removed): what a search that finds nothing says. */
export async function directorySize(db: Db): Promise<number> {
  const row = await db
    .selectFrom('non_profits')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('removed_at', 'is', null)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}
