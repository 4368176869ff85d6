// Ranking directory search results (ADR 7): how well the query matches an
// organisation's name, plus how prominent the IRS file says the organisation
// is. Both are in the same unit, roughly "an order of magnitude of revenue",
// so that a national organisation outranks its namesakes, chapters and trusts
// while a name matched whole still wins for a specific query. Pure: no I/O,
// and no organisation's name appears here; only what the IRS codes mean.

import { distanceKm } from './geo.ts';

/** Words that join others or say what legal form a body has: optional in a query, not counted as a name's own. */
export const FILLER: ReadonlySet<string> = new Set([
  'a',
  'an',
  'and',
  'the',
  'of',
  'for',
  'in',
  'at',
  'on',
  'to',
  'by',
  'inc',
  'incorporated',
  'corp',
  'corporation',
  'co',
  'ltd',
  'llc',
]);

/** Ways of writing one word that IRS names and donors both use: each finds the others. */
const SAME_WORD: ReadonlyArray<readonly string[]> = [
  ['st', 'saint'],
  ['sts', 'saints'],
  ['mt', 'mount'],
  ['ft', 'fort'],
  ['intl', 'international', 'internatl'],
  ['univ', 'university'],
  ['natl', 'national'],
  ['assn', 'assoc', 'association'],
  ['ctr', 'center', 'centre'],
  ['hosp', 'hospital'],
  ['dept', 'department'],
  ['soc', 'society'],
  ['inst', 'institute', 'institution'],
  ['amer', 'american'],
  ['fdn', 'fndn', 'foundation'],
  ['cmty', 'community'],
  ['svcs', 'services'],
  ['bros', 'brothers'],
  ['coun', 'council'],
  ['sch', 'school'],
  ['acad', 'academy'],
  ['mus', 'museum'],
  ['hist', 'historical'],
];
const SAME = new Map<string, readonly string[]>();
for (const group of SAME_WORD) for (const w of group) SAME.set(w, group);

/**
 * A query word's other spellings: its abbreviation or long form, and for a
 * word of 4 letters or more its plural or possessive ("children", "childrens")
 * or its singular, as IRS names drop apostrophes.
 */
export function otherSpellings(word: string): string[] {
  const out = new Set<string>(SAME.get(word) ?? []);
  if (word.length >= 4 && !word.endsWith('ss')) out.add(word.endsWith('s') ? word.slice(0, -1) : `${word}s`);
  out.delete(word);
  return [...out];
}

/** Expansion quality of another spelling: near enough to exact, below a prefix. */
export const SPELLING_QUALITY = 0.25;

/**
 * One query word and the vocabulary words it may stand for, with their quality (0 exact ... 3 two
 * edits). `K` is how words are written: as text, or as the numbers a held directory gives them.
 */
export interface Term<K = string> {
  map: ReadonlyMap<K, number>;
  /** A filler word: it need not match. */
  optional: boolean;
}

/** What a matched word costs: nothing exact, a little for another spelling or an unfinished word, more per typo. */
function cost(quality: number): number {
  if (quality < 1) return quality;
  return quality === 1 ? 0.5 : quality - 0.8;
}

/** Whether a word written as text is FILLER (wordsScore's `isFiller` for text). */
export const isFillerText = (w: string): boolean => FILLER.has(w);

/**
 * How well `terms` match a name (or, for a word the name lacks, the city,
 * at one point more); undefined when a required word matches neither.
 * A name matched whole, from its start, or as a phrase scores highest; each
 * word of the name the query left out costs a little.
 */
export function textScore(nameWords: readonly string[], cityWords: readonly string[], terms: readonly Term[]): number | undefined {
  return wordsScore(nameWords, cityWords, terms, isFillerText);
}

/** Where wordsScore found each required term in the name: scratch, reused by every call. */
let placesFound = new Int32Array(16);

/**
 * textScore over words however they are written: `isFiller` says which are FILLER. Called for
 * every candidate of a search, so it makes no array or closure of its own.
 */
export function wordsScore<K>(nameWords: ArrayLike<K>, cityWords: ArrayLike<K>, terms: readonly Term<K>[], isFiller: (w: K) => boolean): number | undefined {
  // The name's own words are those not filler (all of them when every one is); a word's place is
  // counted among them.
  let own = 0;
  for (let i = 0; i < nameWords.length; i++) if (!isFiller(nameWords[i] as K)) own += 1;
  const skipFiller = own > 0;
  const words = skipFiller ? own : nameWords.length;
  // The terms required: those not optional, or all of them when every one is.
  let someRequired = false;
  for (let t = 0; t < terms.length && !someRequired; t++) someRequired = !(terms[t] as Term<K>).optional;
  if (placesFound.length < terms.length) placesFound = new Int32Array(2 * terms.length);
  const positions = placesFound;
  let required = 0;
  let placed = 0;
  let total = 0;
  let last = -1;
  for (let t = 0; t < terms.length; t++) {
    const term = terms[t] as Term<K>;
    if (someRequired && term.optional) continue;
    required += 1;
    let bestAt = -1;
    let bestQuality = 0;
    let at = -1;
    for (let i = 0; i < nameWords.length; i++) {
      const w = nameWords[i] as K;
      if (skipFiller && isFiller(w)) continue;
      at += 1;
      const quality = term.map.get(w);
      if (quality === undefined) continue;
      // The closest spelling; among equals, the first one after the previous word's.
      if (bestAt < 0 || quality < bestQuality || (quality === bestQuality && bestAt <= last && at > last)) {
        bestAt = at;
        bestQuality = quality;
      }
    }
    if (bestAt >= 0) {
      total += cost(bestQuality);
      positions[placed++] = bestAt;
      last = bestAt;
      continue;
    }
    let inCity: number | undefined;
    for (let i = 0; i < cityWords.length; i++) {
      const quality = term.map.get(cityWords[i] as K);
      if (quality !== undefined && (inCity === undefined || quality < inCity)) inCity = quality;
    }
    if (inCity === undefined) return undefined;
    total += cost(inCity) + 1;
  }
  // Name words matched (two terms on one word count it once), in the query's order, side by side.
  let matched = 0;
  for (let i = 0; i < placed; i++) {
    let j = 0;
    while (j < i && positions[j] !== positions[i]) j++;
    if (j === i) matched += 1;
  }
  let inOrder = placed === required;
  for (let i = 1; inOrder && i < placed; i++) inOrder = (positions[i] as number) > (positions[i - 1] as number);
  let phrase = inOrder;
  for (let i = 1; phrase && i < placed; i++) phrase = positions[i] === (positions[i - 1] as number) + 1;
  const near = inOrder && !phrase && (positions[placed - 1] as number) - (positions[0] as number) <= placed;
  const start = phrase && placed > 0 && positions[0] === 0;
  const whole = start && matched === words;
  const extra = words - matched;
  return (whole ? 2 : 0) + (start ? 0.5 : 0) + (phrase ? 1 : near ? 0.5 : 0) - 0.4 * Math.min(extra, 5) - total;
}

/**
 * The best score of a name among the query's readings (the first as typed, the others with words
 * joined or split, which cost REWRITE_COST); undefined when no reading matches.
 */
export function readingsScore<K>(nameWords: ArrayLike<K>, cityWords: ArrayLike<K>, readings: ReadonlyArray<readonly Term<K>[]>, isFiller: (w: K) => boolean): number | undefined {
  let text: number | undefined;
  for (let i = 0; i < readings.length; i++) {
    const s = wordsScore(nameWords, cityWords, readings[i] as readonly Term<K>[], isFiller);
    if (s === undefined) continue;
    const reading = i === 0 ? s : s - REWRITE_COST;
    if (text === undefined || reading > text) text = reading;
  }
  return text;
}

/** What ranks a search's candidates besides their names: an EIN typed whole (first whatever its name), and the filters. */
export interface Ranking {
  readings: ReadonlyArray<readonly Term[]>;
  ein: string | null;
  cause_id?: number;
  state?: string;
  near?: { latitude: number; longitude: number; radius_km: number };
}

/** Whether an organisation passes a search's filters: its cause, its state, within the distance. */
export function inFilters(r: Ranking, cause: number, state: string, latitude: number | null, longitude: number | null): boolean {
  if (r.cause_id !== undefined && cause !== r.cause_id) return false;
  if (r.state !== undefined && state !== r.state.toUpperCase()) return false;
  const near = r.near;
  return near === undefined || (latitude !== null && longitude !== null && distanceKm(near.latitude, near.longitude, latitude, longitude) <= near.radius_km);
}

/** A candidate scored: `at` says where its name is, for the rare tie that comes down to names. */
export interface Scored {
  id: number;
  score: number;
  income: number;
  asset: number;
  at: number;
  /** Its name, once a tie has asked for it. */
  name?: string;
}

/** Best first: by score, then income, then assets, then name, then id (a total order: the same answer whatever order they came in). */
function rankOrder(nameAt: (at: number) => string): (a: Scored, b: Scored) => number {
  return (a, b) => {
    const by = b.score - a.score || b.income - a.income || b.asset - a.asset;
    if (by !== 0) return by;
    // Ties are common (many small organisations report nothing): each name is read once.
    const x = (a.name ??= nameAt(a.at));
    const y = (b.name ??= nameAt(b.at));
    return (x < y ? -1 : x > y ? 1 : 0) || a.id - b.id;
  };
}

/** Past this many wanted, the best are found by sorting them all. */
const BEST_BY_INSERTING_MAX = 200;

/**
 * The first `k` of `scored` in rank order (rankOrder). A page wants only its own and those before
 * it: for a few, each candidate is held against the worst of the best so far (one comparison for
 * most), where sorting them all cost a fifth of a search.
 */
export function best(scored: Scored[], k: number, nameAt: (at: number) => string): Scored[] {
  const order = rankOrder(nameAt);
  if (k >= scored.length || k > BEST_BY_INSERTING_MAX) return scored.sort(order).slice(0, k);
  const kept: Scored[] = [];
  if (k <= 0) return kept;
  for (const s of scored) {
    if (kept.length === k && order(s, kept[k - 1] as Scored) >= 0) continue;
    let lo = 0;
    let hi = kept.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (order(kept[mid] as Scored, s) <= 0) lo = mid + 1;
      else hi = mid;
    }
    kept.splice(lo, 0, s);
    if (kept.length > k) kept.pop();
  }
  return kept;
}

/** The IRS fields prominence reads (codes as in the BMF; see codes/bmf_field_codes.csv). */
export interface Standing {
  income_amt: number;
  revenue_amt: number;
  subsection: string;
  foundation: string;
  affiliation: string;
  organization: string;
  filing_req: string;
  status: string;
  eligible: number | boolean;
}

/** FILING_REQ_CD of organisations the IRS does not ask for a return: churches, religious orders, governments. Their size is unknown, not zero. */
const NOT_ASKED_TO_FILE = new Set(['06', '07', '13', '14']);
/** FOUNDATION codes of private foundations (operating or not). */
const PRIVATE_FOUNDATION = new Set(['02', '03', '04']);
/** FOUNDATION codes of supporting organisations (509(a)(3), of any type). */
const SUPPORTING = new Set(['17', '21', '22', '23', '24']);
/** AFFILIATION codes of a central organisation or the parent of a group. */
const CENTRAL = new Set(['1', '2', '6', '8']);
/** A size assumed for an organisation not asked to file: a mid-sized one ($100k). */
const UNKNOWN_SIZE_LOG = 5;

/**
 * How prominent the IRS file says an organisation is, in orders of magnitude
 * of its revenue (or income): more for the centre of a group and for a public
 * charity, less for a private foundation or charitable trust, a supporting
 * organisation, a chapter of a group, and one that cannot receive deductible gifts.
 */
export function prominence(s: Standing): number {
  // Revenue says how much an organisation does; income (gross receipts) also counts sales of assets: the fallback.
  const size = s.revenue_amt > 0 ? s.revenue_amt : s.income_amt;
  let p = size > 0 ? Math.log10(size) : NOT_ASKED_TO_FILE.has(s.filing_req) ? UNKNOWN_SIZE_LOG : 0;
  // A private foundation or a charitable trust (many public charities are organised as trusts: ORGANIZATION 2 alone says nothing).
  if (PRIVATE_FOUNDATION.has(s.foundation) || s.organization === '6' || s.subsection === '92' || s.status === '12') p -= 2.5;
  // A supporting organisation raises money for another: donors usually mean the one it supports.
  else if (SUPPORTING.has(s.foundation)) p -= 0.5;
  if (CENTRAL.has(s.affiliation)) p += 1;
  else if (s.affiliation === '9') p -= 0.5;
  if (s.subsection === '03') p += 0.5;
  if (s.eligible === 0 || s.eligible === false) p -= 1.5;
  return p;
}

/** Cost of a query read otherwise (words joined or split): a little, so that the query as typed wins a tie. */
export const REWRITE_COST = 0.3;

/**
 * The query read otherwise, for names written as one word or two:
 * "redcross" -> "red cross" (a word no name uses, split into two that names
 * use), "child fund" -> "childfund" (two words that names use as one).
 * `df` says how many organisations use a word. At most `limit` readings.
 */
export function rewrites(tokens: readonly string[], df: (word: string) => number, rareBelow: number, limit = 2): string[][] {
  const out: string[][] = [];
  tokens.forEach((t, i) => {
    if (t.length < 5 || df(t) >= rareBelow) return;
    let best: { a: string; b: string; score: number } | undefined;
    for (let cut = 2; cut <= t.length - 2; cut++) {
      const a = t.slice(0, cut);
      const b = t.slice(cut);
      const score = Math.min(df(a), df(b));
      if (score > 0 && (best === undefined || score > best.score)) best = { a, b, score };
    }
    if (best !== undefined) out.push([...tokens.slice(0, i), best.a, best.b, ...tokens.slice(i + 1)]);
  });
  for (let i = 0; i + 1 < tokens.length; i++) {
    const a = tokens[i] as string;
    const b = tokens[i + 1] as string;
    if (FILLER.has(a) || FILLER.has(b)) continue;
    if (df(a + b) > 0) out.push([...tokens.slice(0, i), a + b, ...tokens.slice(i + 2)]);
  }
  return out.slice(0, limit);
}
