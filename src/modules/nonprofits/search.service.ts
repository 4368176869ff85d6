// Directory search (rules §9, ADR 7): search-as-you-type prefixes, one or
// two typos a word, exact EIN, city; filters by cause, state and distance.
// One design on both engines: the database only looks words up in an index
// (equality), and ranking happens here, so SQLite and PostgreSQL answer alike.

import type { Deps } from '../../deps.ts';
import { offsetOf, toPage, type PageRequest } from '../../shared/page.ts';
import { normalizeEin, tokenize } from './nonprofits.ts';
import { TYPO_CHECK_BELOW_DF, Vocabulary, type Expansion } from './vocabulary.ts';
import { FILLER, otherSpellings, rewrites, SPELLING_QUALITY, type Ranking, type Term } from './rank.ts';
import { toNonProfit, type NonProfit } from './nonprofits.store.ts';
import * as store from './search.store.ts';
import { boxAround, distanceKm } from './geo.ts';
import { databaseReads, type CandidateReads, type Epochs } from './directory.memory.ts';
import { FreshReads } from '../../db/fresh-reads.ts';
import { nonProfitForm } from './nonprofits.service.ts';
import { COMMON_WORD_DF } from './import.service.ts';

export interface SearchQuery {
  query?: string;
  cause_id?: number;
  state?: string;
  near?: { latitude: number; longitude: number; radius_km: number };
}

/** A query word whose expansions reach more organisations than this is checked on candidates, not looked up. */
const DRIVING_DF_MAX = COMMON_WORD_DF;
/**
 * Reading one organisation's row costs about as much as reading 15 entries of
 * the word index (3 us against 0.2 at 1.9M organisations, ADR 7); a word is
 * intersected in the index only below this many users (about 8 ms).
 */
const ROW_COST_IN_ENTRIES = 15;
const INTERSECT_DF_MAX = 40_000;
/**
 * A page whose `count` stopped at the cap says so: `meta.count_capped` (the spec's fields keep
 * their meaning: `count` is then "at least this many").
 */
function capped<T extends { meta: object }>(page: T, isCapped: boolean): T {
  return isCapped ? { ...page, meta: { ...page.meta, count_capped: true } } : page;
}

/** The most candidates one search ranks; `meta.count` is capped here too. */
export const SEARCH_CANDIDATES_MAX = 2_000;
/** The most organisations one search reads from the database, biggest first. */
const CANDIDATE_ROWS = 2_000;
/**
 * When every organisation the word index gives matches every word, and there
 * are more than SEARCH_CANDIDATES_MAX of them (so the count is "2,000+"
 * whatever is read), a page within the first QUICK_ROWS is ranked from the
 * biggest QUICK_ROWS alone: half the row reads, at about 3 us a row at 1.9M
 * organisations (ADR 7).
 */
const QUICK_ROWS = 1_000;
const QUERY_WORDS_MAX = 8;

/** A search's filters, as ranking reads them. */
function filtersOf(q: SearchQuery): Pick<Ranking, 'cause_id' | 'state' | 'near'> {
  return { ...(q.cause_id === undefined ? {} : { cause_id: q.cause_id }), ...(q.state === undefined ? {} : { state: q.state }), ...(q.near === undefined ? {} : { near: q.near }) };
}

interface QueryTerm extends Term {
  list: Expansion[];
  /** How many organisations use any of the words it may stand for. */
  df: number;
}

export class DirectorySearch {
  readonly #deps: Deps;
  readonly #database: CandidateReads;
  #vocabulary: { epoch: number; vocabulary: Vocabulary } | undefined;
  #loading: Promise<Vocabulary> | undefined;
  /** The directory's epochs, one read shared by the searches that arrive together (db/fresh-reads.ts). */
  readonly #epochs: FreshReads<Epochs>;

  constructor(deps: Deps) {
    this.#deps = deps;
    this.#database = databaseReads(deps.reads);
    this.#epochs = new FreshReads(() => store.directoryEpochs(deps.reads));
  }

  /**
   * What a search reads, as of one reading of the directory's epochs: the vocabulary, and the word
   * index and organisations from the directory held in memory when it was read at them
   * (directory.memory.ts), otherwise from the database.
   */
  async #reading(): Promise<{ vocabulary: Vocabulary; reads: CandidateReads }> {
    const epochs = await this.#epochs.get();
    const reads = this.#deps.config.directoryInMemory ? this.#deps.runtime.directory.readsAt(epochs) : this.#database;
    return { vocabulary: await this.#vocabularyAt(epochs.epoch), reads };
  }

  /** The vocabulary, reloaded when an import has raised the epoch. */
  async #vocabularyAt(epoch: number): Promise<Vocabulary> {
    if (this.#vocabulary?.epoch === epoch) return this.#vocabulary.vocabulary;
    this.#loading ??= (async () => {
      const entries = await store.vocabularyEntries(this.#deps.reads);
      // A directory filled without an import (tests, early demo data) has no vocabulary table yet.
      const vocabulary = new Vocabulary(entries.length > 0 ? entries : await store.countWords(this.#deps.reads));
      this.#vocabulary = { epoch, vocabulary };
      return vocabulary;
    })().finally(() => {
      this.#loading = undefined;
    });
    return this.#loading;
  }

  async search(q: SearchQuery, page: PageRequest) {
    const tokens = tokenize(q.query ?? '').slice(0, QUERY_WORDS_MAX);
    // Text with no letters or digits ("%", "--") asks for something no name has.
    if (tokens.length === 0 && (q.query ?? '').trim() !== '') return toPage([], 0, page);
    const start = offsetOf(page);
    const quick = q.cause_id === undefined && q.state === undefined && q.near === undefined && start + page.per_page <= QUICK_ROWS;
    // Only this page and those before it are put in order (at most the first 2,000 are counted).
    const wanted = Math.min(start + page.per_page, SEARCH_CANDIDATES_MAX);
    const found = tokens.length === 0 ? undefined : await this.#ranked(q, tokens, quick, wanted);
    if (found === undefined) return this.#browse(q, page);
    const { ranked, count, overCap, partial } = found;
    const ids = ranked.slice(start, start + page.per_page);
    const byId = new Map((await store.listedRows(this.#deps.reads, ids)).map((r) => [r.id, r]));
    const rows = ids.map((id) => byId.get(id)).filter((r) => r !== undefined);
    return capped(
      toPage(
        rows.map((r) => nonProfitForm(this.#deps, toNonProfit(r) as NonProfit)),
        overCap ? SEARCH_CANDIDATES_MAX : count,
        page,
      ),
      overCap || partial || count >= SEARCH_CANDIDATES_MAX,
    );
  }

  /** No query words: the filters alone, biggest organisations first. */
  async #browse(q: SearchQuery, page: PageRequest) {
    const filters: store.Filters = { ...(q.cause_id === undefined ? {} : { cause_id: q.cause_id }), ...(q.state === undefined ? {} : { state: q.state }) };
    if (q.near !== undefined) {
      const box = boxAround(q.near.latitude, q.near.longitude, q.near.radius_km);
      // The box is a superset of the circle: rank and cut the box in memory.
      const boxed = await store.biggestMatching(this.#deps.reads, { ...filters, box }, SEARCH_CANDIDATES_MAX * 5);
      const near = q.near;
      const inside = boxed.filter((r) => r.latitude !== null && r.longitude !== null && distanceKm(near.latitude, near.longitude, r.latitude, r.longitude) <= near.radius_km);
      const start = offsetOf(page);
      return capped(
        toPage(
          inside.slice(start, start + page.per_page).map((r) => nonProfitForm(this.#deps, toNonProfit(r))),
          inside.length,
          page,
        ),
        boxed.length >= SEARCH_CANDIDATES_MAX * 5,
      );
    }
    const { rows, count } = await store.pageMatching(this.#deps.reads, filters, page);
    return toPage(
      rows.map((r) => nonProfitForm(this.#deps, toNonProfit(r))),
      count,
      page,
    );
  }

  /** A reading of the query as terms: each word with what it may stand for (prefix, typos, other spellings). */
  #terms(vocabulary: Vocabulary, words: readonly string[]): QueryTerm[] {
    return words.map((t, i) => {
      const list: Expansion[] = vocabulary.expand(t, i === words.length - 1);
      for (const other of otherSpellings(t)) {
        const df = vocabulary.dfOf(other);
        if (df > 0 && !list.some((e) => e.word === other)) list.push({ word: other, quality: SPELLING_QUALITY, df });
      }
      return { list, map: new Map(list.map((e) => [e.word, e.quality])), df: list.reduce((s, e) => s + e.df, 0), optional: FILLER.has(t) };
    });
  }

  /** Query words: candidates from the word index, checked and ranked (rank.ts). */
  async #ranked(q: SearchQuery, tokens: string[], quick: boolean, wanted: number): Promise<{ ranked: number[]; count: number; overCap: boolean; partial: boolean }> {
    const { vocabulary, reads } = await this.#reading();
    const einText = (q.query ?? '').trim();
    const ein = normalizeEin(einText) ?? (/^\d{9}$/.test(tokens.join('')) ? tokens.join('') : null);
    // The query as typed, then read with words joined or split ("redcross", "child fund").
    const readings = [tokens, ...rewrites(tokens, (w) => vocabulary.dfOf(w), TYPO_CHECK_BELOW_DF)].map((words) => this.#terms(vocabulary, words));
    // An EIN typed whole finds its organisation first, whatever its name.
    const einHandles = ein === null ? [] : reads.handlesOf((await store.listedCandidates(this.#deps.reads, { ein })).map((r) => r.id));
    const lists: Array<{ handles: number[]; distinct: boolean }> = einHandles.length === 0 ? [] : [{ handles: einHandles, distinct: true }];
    let overCap = false;
    let partial = false;
    for (const terms of readings) {
      const found = await this.#candidates(reads, terms, quick);
      lists.push(found);
      overCap ||= found.overCap;
      partial ||= found.partial;
    }
    // Each candidate ranked once: one list of distinct handles as it is, more put through a set.
    const only = lists.length === 1 ? (lists[0] as { handles: number[]; distinct: boolean }) : undefined;
    const handles = only?.distinct === true ? only.handles : [...new Set(lists.flatMap((l) => l.handles))];
    const best = await reads.ranked(handles, { readings, ein, ...filtersOf(q) }, wanted);
    return { ranked: best.ids, count: Math.min(best.count, SEARCH_CANDIDATES_MAX), overCap, partial };
  }

  /**
   * The organisations one reading of the query may mean, from the word index:
   * at most CANDIDATE_ROWS, biggest first; `quick`, at most QUICK_ROWS when
   * more than SEARCH_CANDIDATES_MAX organisations match every word (`overCap`).
   * `partial`: some organisations that may match were not read.
   */
  async #candidates(reads: CandidateReads, terms: readonly QueryTerm[], quick: boolean): Promise<{ handles: number[]; distinct: boolean; overCap: boolean; partial: boolean }> {
    const wanted = terms.some((t) => !t.optional) ? terms.filter((t) => !t.optional) : terms;
    // A word that stands for no word of the vocabulary matches no organisation.
    if (wanted.some((e) => e.list.length === 0)) return { handles: [], distinct: true, overCap: false, partial: false };
    // Candidates: the rarest word's organisations (looked up in the index),
    // narrowed by the users of the next rarest words, in the index too, while
    // more organisations are left than can be read, or reading a word's entries
    // costs less than reading the rows it rules out; the words left are checked
    // on the rows read.
    const rarestFirst = [...wanted].sort((a, b) => a.df - b.df);
    const [first, ...others] = rarestFirst;
    if (first !== undefined && first.df <= DRIVING_DF_MAX) {
      // Each word's users come from the word index alone (no rows), and are
      // intersected here: a planner cannot pick a bad join order.
      const users = await reads.postings(first.list.map((e) => e.word));
      let intersected = 1;
      for (const d of others) {
        // While more organisations are left than are read, a word checked on rows
        // alone would miss those it was not checked on: it is looked up whatever it costs.
        if (d.df > INTERSECT_DF_MAX || (users.size <= CANDIDATE_ROWS && d.df > ROW_COST_IN_ENTRIES * users.size)) break;
        await users.narrow(d.list.map((e) => e.word));
        intersected += 1;
      }
      // Every organisation left uses every word (no word stands for a filler
      // word, which names are not matched on), so there is no need to read more
      // of them than a page can show to know there are over 2,000.
      const everyWord = intersected === wanted.length && rarestFirst.slice(0, intersected).every((t) => t.list.every((e) => !FILLER.has(e.word)));
      const overCap = quick && everyWord && users.size > SEARCH_CANDIDATES_MAX;
      return {
        handles: users.biggest(overCap ? QUICK_ROWS : CANDIDATE_ROWS),
        distinct: true,
        overCap,
        partial: !everyWord && users.size > CANDIDATE_ROWS,
      };
    }
    // Every word is common ("first baptist church"): the biggest organisations
    // using the rarest of them, from the lists the import keeps (directory_top),
    // plus the biggest users of its rarer expansions.
    if (first === undefined) return { handles: [], distinct: true, overCap: false, partial: false };
    const common = first.list.filter((e) => e.df > COMMON_WORD_DF).map((e) => e.word);
    // Rare expansions in order of closeness, while their organisations fit the budget.
    const rare: string[] = [];
    let budget = COMMON_WORD_DF;
    for (const e of first.list) {
      if (e.df > COMMON_WORD_DF || e.df > budget) continue;
      rare.push(e.word);
      budget -= e.df;
    }
    const top = await reads.topOfWords(common);
    const more = rare.length === 0 ? [] : (await reads.postings(rare)).biggest(Math.max(CANDIDATE_ROWS - top.length, 0));
    // The import's lists of several words, and the rare words' users, may name one organisation twice.
    return { handles: [...top, ...more], distinct: false, overCap: false, partial: true };
  }
}
