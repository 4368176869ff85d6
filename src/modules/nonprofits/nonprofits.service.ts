// Use cases for the non-profit directory.
import type { Deps } from '../../deps.ts';
import { AppError, badRequest, notFound } from '../../shared/errors.ts';
import type { Db, Trx } from '../../db/database.ts';
import { assert } from '../../shared/assert.ts';
import { causeById, causeJson, causeLogoUrl } from './causes.ts';
import { normalizeEin, refusalOf } from './nonprofits.ts';
import { EIN_RULE } from '../../shared/ein.ts';
import * as store from './nonprofits.store.ts';
import { ensureDirectoryIndexes } from './directory.store.ts';
import * as searchStore from './search.store.ts';
import { boxAround } from './geo.ts';
import { charityProfile } from './profile.ts';

/** Form 2.5 (detail and search item; both carry `id`, rules §9). */
export function nonProfitForm(deps: Deps, np: store.NonProfit) {
  const cause = causeById(np.cause_id);
  assert(cause !== undefined, 'a non-profit has a known cause');
  const publicUrl = deps.config.publicUrl;
  return {
    id: np.id,
    ein: np.ein,
    name: np.name,
    website: np.website,
    city: np.city,
    state: np.state,
    public_path: np.public_path,
    public_url: `${publicUrl}${np.public_path}`,
    latitude: np.latitude,
    longitude: np.longitude,
    logo: causeLogoUrl(publicUrl, cause),
    cause: causeJson(publicUrl, cause),
    causes: [causeJson(publicUrl, cause)],
  };
}

/** Throws invalid_parameter for a malformed EIN, non_profit_not_found for an unknown one. */
export async function getNonProfit(deps: Deps, einText: string) {
  const ein = normalizeEin(einText);
  if (ein === null) throw badRequest('invalid_parameter', `ein ${EIN_RULE}`);
  const np = await store.findByEin(deps.lookups, ein);
  if (np === undefined) throw notFound('non_profit_not_found', `no non-profit with EIN ${ein}`);
  return nonProfitForm(deps, np);
}

/**
 * A charity's page: its form, whether it can receive donations now, and
 * `about()`, what the page adds (what the IRS says of it, others nearby and
 * like it), read only for a page shown rather than redirected to its address.
 * Throws non_profit_not_found.
 */
export async function charityByEin(deps: Deps, ein: string) {
  const np = await store.findByEin(deps.db, ein);
  if (np === undefined) throw notFound('non_profit_not_found', 'there is no non-profit at this address');
  const refusal = refusalOf(np);
  return {
    view: nonProfitForm(deps, np),
    receives: np.eligible && !np.removed && refusal === undefined,
    /** What the due diligence lists found (rules §16): why it may receive nothing, or that a close name match awaits review. */
    diligence: { refusal: refusal?.why, review: np.diligence === 'review' },
    about: () => aboutCharity(deps, np),
  };
}

async function aboutCharity(deps: Deps, np: store.NonProfit) {
  const details = await store.irsDetailsOf(deps.db, np.id);
  assert(details !== undefined, 'an organisation just read has details');
  // Others a donor may look at: the largest ones nearby, and the largest of its cause in its state (or everywhere, for a foreign one).
  const [nearby, similar] = await Promise.all([
    np.latitude === null || np.longitude === null ? [] : searchStore.biggestMatching(deps.db, { box: boxAround(np.latitude, np.longitude, NEARBY_KM) }, RELATED * 2),
    searchStore.biggestMatching(deps.db, { cause_id: np.cause_id, ...(np.state === '' ? {} : { state: np.state }) }, RELATED * 2),
  ]);
  const others = (rows: searchStore.SearchRow[]) =>
    rows
      .filter((r) => r.id !== np.id && r.eligible === 1)
      .slice(0, RELATED)
      .map((r) => nonProfitForm(deps, store.toNonProfit(r)));
  return { profile: charityProfile({ ...details, removed: np.removed }), nearby: others(nearby), similar: others(similar) };
}

/** The centre of a five-digit ZIP code, for "near me". Throws invalid_parameter for a malformed or unknown one. */
export async function zipCentre(deps: Deps, zip: string): Promise<{ latitude: number; longitude: number }> {
  if (!/^\d{5}$/.test(zip)) throw badRequest('invalid_parameter', 'a ZIP code is five digits, like 05401');
  const centre = await searchStore.zipCentroid(deps.db, zip);
  if (centre === undefined) throw badRequest('invalid_parameter', `the directory does not know ZIP code ${zip}`);
  return centre;
}

/** How far "nearby" reaches on a charity's page, and how many others it shows of each kind. */
const NEARBY_KM = 15;
const RELATED = 5;

/**
 * The organisation a donation goes to: known, eligible, and still listed by the IRS.
 * Throws not_found (non_profit_not_found), unprocessable (non_profit_ineligible).
 */
export async function findRecipient(db: Db | Trx, ein: string): Promise<store.NonProfit> {
  const np = recipientOr(ein, await store.findByEin(db, ein));
  if (np instanceof AppError) throw np;
  return np;
}

/** findRecipient for several EINs in one statement: each one's organisation, or the error findRecipient would throw. */
export async function findRecipients(db: Db | Trx, eins: readonly string[]): Promise<Map<string, store.NonProfit | AppError>> {
  const found = new Map((await store.findByEins(db, [...new Set(eins)])).map((np) => [np.ein, np]));
  return new Map(eins.map((ein) => [ein, recipientOr(ein, found.get(ein))]));
}

/**
 * findRecipients with the records epoch read before them: what they say holds
 * while the epoch is still that (store.recordsEpochIs).
 */
export async function findRecipientsAsOf(db: Db, eins: readonly string[]): Promise<{ epoch: number; recipients: Map<string, store.NonProfit | AppError> }> {
  const epoch = await store.recordsEpoch(db);
  return { epoch, recipients: await findRecipients(db, eins) };
}

export const recordsEpochIs = store.recordsEpochIs;

function recipientOr(ein: string, np: store.NonProfit | undefined): store.NonProfit | AppError {
  if (np === undefined) return notFound('non_profit_not_found', `no non-profit with EIN ${ein}`);
  if (!np.eligible || np.removed) {
    return new AppError('unprocessable', 'non_profit_ineligible', `${np.name} cannot receive donations${np.removed ? ': the IRS no longer lists it' : ''}`);
  }
  const refusal = refusalOf(np);
  if (refusal !== undefined) return new AppError('unprocessable', refusal.code, `${np.name} cannot receive donations: ${refusal.why}`);
  return np;
}

/**
 * Readies the directory on every start (idempotent): the causes of rules §9,
 * and the search indexes an interrupted import may have left dropped.
 */
export async function prepareDirectory(db: Db): Promise<void> {
  await store.seedCauses(db);
  await ensureDirectoryIndexes(db);
}

/** The organisations one imported file brought, in import order, split by whether they may receive donations. */
export async function einsOfFile(deps: Deps, source: string): Promise<{ eligible: string[]; ineligible: string[] }> {
  const rows = await store.einsOfSource(deps.db, source);
  return { eligible: rows.filter((r) => r.eligible).map((r) => r.ein), ineligible: rows.filter((r) => !r.eligible).map((r) => r.ein) };
}

/** How many organisations the directory holds. */
export async function directorySize(deps: Deps): Promise<number> {
  return await store.directorySize(deps.db);
}
