// The sponsor's due diligence (docs/rules.md §16): lists imported as dated
// snapshots, every organisation screened against them, and the operator's
// review of close name matches. What screening finds is written on the
// organisation (`non_profits.diligence`), which a donation reads with the
// organisation itself, so checking it costs a donation nothing.
import { pushTo } from '../../shared/groups.ts';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { basename } from 'node:path';
import type { Deps } from '../../deps.ts';
import { AppError, conflict, notFound } from '../../shared/errors.ts';
import { recordAudit } from '../audit/index.ts';
import { bumpRecordsEpoch, foundationRefusal, type Diligence } from '../nonprofits/index.ts';
import { compareNames, LIST_NAMES, lookupWords, nameKey, pub78Refusal, readPub78, readRevocations, readSdn, type ListKind, type Parsed } from './diligence.ts';
import * as store from './diligence.store.ts';
import { isCalendarDay } from '../../shared/days.ts';

/** A list file read and checked, not yet recorded. */
export interface ListFile {
  kind: ListKind;
  source: string;
  sha256: string;
  entries: readonly unknown[];
}

/**
 * Reads one list file (plain or .gz) and checks every line. A file with any line that is not as
 * published is refused whole, naming its lines. Throws unprocessable (list_malformed).
 */
export function readListFile(kind: ListKind, path: string): ListFile {
  const bytes = readFileSync(path);
  const raw = path.endsWith('.gz') ? gunzipSync(bytes) : bytes;
  const text = raw.toString('utf8');
  const parsed: Parsed<unknown> = kind === 'revocations' ? readRevocations(text) : kind === 'pub78' ? readPub78(text) : readSdn(text);
  if (!parsed.ok) {
    throw new AppError('unprocessable', 'list_malformed', `${basename(path)} is not the ${LIST_NAMES[kind]} as published: nothing was imported`, {
      errors: parsed.bad.map((b) => ({ field: `line ${b.line}`, code: 'list_malformed', message: b.reason })),
    });
  }
  return { kind, source: basename(path), sha256: createHash('sha256').update(raw).digest('hex'), entries: parsed.entries };
}

/**
 * Records a list read by readListFile as the current snapshot of its kind, as of `asOf` (the day it
 * was published or downloaded), audited. Screen the directory after (screenDirectory): until then
 * organisations keep their findings. Throws validation_failed for a date that is not one.
 */
export async function recordList(deps: Deps, list: ListFile, asOf: string, actor: string): Promise<{ list_id: number; entries: number }> {
  if (!isCalendarDay(asOf)) {
    throw new AppError('unprocessable', 'validation_failed', `the list's date ${JSON.stringify(asOf)} is not a date (YYYY-MM-DD)`);
  }
  const at = deps.clock.now().toISOString();
  const listId = await deps.db.transaction().execute(async (trx) => {
    const id = await store.insertList(trx, { kind: list.kind, as_of: asOf, imported_at: at, source: list.source, sha256: list.sha256 }, list.entries as never);
    const after = { kind: list.kind, as_of: asOf, entries: list.entries.length, sha256: list.sha256 };
    await recordAudit(trx, { book: 'live', actor, action: 'diligence_list.imported', object_type: 'diligence_list', object_id: id, before: null, after, at });
    return id;
  });
  return { list_id: listId, entries: list.entries.length };
}

export interface Screening {
  screened: number;
  /** Organisations whose finding changed, by what it is now. */
  changed: Partial<Record<Diligence, number>>;
  /** Close matches put before an operator for the first time. */
  new_reviews: number;
}

const PAGE = 5000;
/** A word in more listed names than this picks no candidates by itself: too common to tell names apart. */
const COMMON_WORD = 200;

/**
 * Screens every organisation against the current lists and writes what changed, with the records
 * epoch raised in the same transaction (nodes then forget the organisations they remembered).
 * Order of findings: sanctioned (an exact name, or a review confirmed), revoked, a private
 * foundation or a supporting organisation not functionally integrated (FOUNDATION code or
 * Publication 78), review (a close name not yet decided), clear.
 */
export async function screenDirectory(deps: Deps, onProgress?: (screened: number) => void): Promise<Screening> {
  const [revoked, pub78, listed, reviews] = await Promise.all([store.revokedEins(deps.db), store.pub78Codes(deps.db), store.sanctionEntries(deps.db), store.allReviews(deps.db)]);
  const exact = new Map(listed.map((l) => [l.name_key, l.name]));
  const byWord = new Map<string, Array<{ name: string; name_key: string }>>();
  for (const l of listed) for (const w of lookupWords(l.name_key)) pushTo(byWord, w, l);
  const decided = new Map(reviews.map((r) => [`${r.non_profit_id} ${r.listed_key}`, r.status]));

  const changes = new Map<Diligence, number[]>();
  const newReviews: Parameters<typeof store.insertReviews>[1][number][] = [];
  const at = deps.clock.now().toISOString();
  let screened = 0;
  for (let after = 0; ;) {
    const page = await store.screeningPage(deps.db, after, PAGE);
    if (page.length === 0) break;
    for (const np of page) {
      const key = nameKey(np.name);
      let finding: Diligence = 'clear';
      if (exact.has(key)) finding = 'sanctioned';
      else {
        const candidates = new Set<{ name: string; name_key: string }>();
        for (const w of lookupWords(key)) {
          const named = byWord.get(w);
          if (named !== undefined && named.length <= COMMON_WORD) for (const l of named) candidates.add(l);
        }
        for (const l of candidates) {
          const reason = compareNames(key, l.name_key);
          if (reason === undefined) continue;
          const status = decided.get(`${np.id} ${l.name_key}`);
          if (status === 'confirmed') finding = 'sanctioned';
          else if (status === undefined) {
            newReviews.push({ non_profit_id: np.id, ein: np.ein, name: np.name, listed_name: l.name, listed_key: l.name_key, reason, status: 'pending', created_at: at });
            decided.set(`${np.id} ${l.name_key}`, 'pending');
            if (finding === 'clear') finding = 'review';
          } else if (status === 'pending' && finding === 'clear') finding = 'review';
        }
      }
      if (finding !== 'sanctioned') {
        const refused = revoked.has(np.ein) ? 'revoked' : (pub78Refusal(pub78.get(np.ein) ?? '') ?? foundationRefusal(np.foundation));
        if (refused !== undefined) finding = refused;
      }
      if (finding !== np.diligence) pushTo(changes, finding, np.id);
    }
    screened += page.length;
    after = (page[page.length - 1] as { id: number }).id;
    onProgress?.(screened);
  }
  if (changes.size > 0 || newReviews.length > 0) {
    await deps.db.transaction().execute(async (trx) => {
      for (const [finding, ids] of changes) await store.setDiligence(trx, ids, finding);
      await store.insertReviews(trx, newReviews);
      await bumpRecordsEpoch(trx);
    });
  }
  return { screened, changed: Object.fromEntries([...changes].map(([k, ids]) => [k, ids.length])), new_reviews: newReviews.length };
}

/** The close matches waiting for an operator, oldest first. */
export async function pendingReviews(deps: Deps, limit = 100) {
  return await store.reviewsInStatus(deps.db, 'pending', limit);
}

/**
 * An operator decides a close match: `cleared` (not the listed party: the organisation may be paid)
 * or `confirmed` (it is: refused from now on, and its unpaid grants rejected at the next run).
 * Audited; the organisation is screened again at once. Throws review_not_found, conflict (decided already).
 */
export async function decideReview(deps: Deps, id: number, decision: 'cleared' | 'confirmed', note: string, actor: string) {
  const at = deps.clock.now().toISOString();
  await deps.db.transaction().execute(async (trx) => {
    const review = await store.lockReview(trx, id);
    if (review === undefined) throw notFound('review_not_found', `no review ${id}`);
    if (!(await store.decideReview(trx, id, { status: decision, decided_at: at, decided_by: actor, note })))
      throw conflict('review_decided', `review ${id} was decided already (${review.status})`);
    await recordAudit(trx, {
      book: 'live',
      actor,
      action: `sanction_review.${decision}`,
      object_type: 'sanction_review',
      object_id: id,
      before: { status: review.status },
      after: { status: decision, note },
      at,
    });
  });
  return await screenDirectory(deps);
}

/** The current lists (name, date, entries): what a charity page says it was checked against. */
export async function listsInForce(deps: Deps) {
  return (await store.currentLists(deps.db)).map((l) => ({ kind: l.kind as ListKind, name: LIST_NAMES[l.kind as ListKind], as_of: l.as_of, entries: l.entries, source: l.source }));
}
