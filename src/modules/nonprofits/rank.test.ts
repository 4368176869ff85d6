// The ranking's rules (rank.ts), each on its own: how a name matches, and
// what the IRS codes say of an organisation's prominence.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { best, FILLER, otherSpellings, prominence, rewrites, textScore, type Scored, type Standing, type Term } from './rank.ts';

/** Terms as search builds them: each word exact, filler optional. */
const terms = (query: string, extra: Record<string, Record<string, number>> = {}): Term[] =>
  query.split(' ').map((w) => ({ map: new Map([[w, 0], ...Object.entries(extra[w] ?? {})]), optional: FILLER.has(w) }));
const score = (name: string, query: string, city = 'nowhere') => textScore(name.split(' '), city.split(' '), terms(query));

test('a name matched whole beats one that starts with the query, which beats the query as a phrase inside it, which beats the words apart', () => {
  const whole = score('red cross', 'red cross') as number;
  const start = score('red cross elementary', 'red cross') as number;
  const inside = score('american red cross', 'red cross') as number;
  const apart = score('red river cross', 'red cross') as number;
  assert.ok(whole > start && start > inside && inside > apart, `${whole} ${start} ${inside} ${apart}`);
});

test('each word the name has besides costs a little, at most five; filler words are neither required nor counted', () => {
  assert.ok((score('salvation army', 'salvation army') as number) > (score('salvation army trust fbo', 'salvation army') as number));
  assert.equal(score('a b c d e f g h i', 'a'), score('a b c d e f', 'a'), 'at most five extra words count');
  assert.equal(score('boys girls club', 'boys and girls club'), score('boys and girls club inc', 'boys girls club'));
});

test('a word only in the city costs one point more than in the name; a word in neither rules the organisation out', () => {
  const inName = score('burlington food shelf', 'food burlington') as number;
  const inCity = score('food shelf', 'food burlington', 'burlington') as number;
  assert.ok(inName > inCity);
  assert.equal(score('food shelf', 'food pantry'), undefined);
});

test('a typo or another spelling costs what its quality says; an exact word nothing', () => {
  const exact = textScore(['saint', 'jude'], [], terms('saint jude')) as number;
  const spelled = textScore(['saint', 'jude'], [], terms('st jude', { st: { saint: 0.25 } })) as number;
  const typo = textScore(['saint', 'jude'], [], terms('sanit jude', { sanit: { saint: 2 } })) as number;
  assert.ok(exact > spelled && spelled > typo, `${exact} ${spelled} ${typo}`);
});

test('other spellings: abbreviations both ways, plurals and possessives of words of 4 letters or more, not of -ss words', () => {
  assert.deepEqual(otherSpellings('st'), ['saint']);
  assert.deepEqual(otherSpellings('international').sort(), ['internationals', 'internatl', 'intl']);
  assert.deepEqual(otherSpellings('childrens'), ['children']);
  assert.deepEqual(otherSpellings('lukes'), ['luke']);
  assert.deepEqual(otherSpellings('cross'), []);
  assert.deepEqual(otherSpellings('red'), []);
});

const standing = (s: Partial<Standing> = {}): Standing => ({
  income_amt: 0,
  revenue_amt: 1_000_000,
  subsection: '03',
  foundation: '15',
  affiliation: '3',
  organization: '1',
  filing_req: '01',
  status: '01',
  eligible: 1,
  ...s,
});

test('prominence: orders of magnitude of revenue (income without it; a church not asked to file counts as mid-sized)', () => {
  assert.equal(prominence(standing()), 6.5);
  assert.equal(prominence(standing({ revenue_amt: 0, income_amt: 10_000 })), 4.5);
  assert.equal(prominence(standing({ revenue_amt: 0, filing_req: '06' })), 5.5);
  assert.equal(prominence(standing({ revenue_amt: 0 })), 0.5);
});

test('prominence: the centre of a group up, a chapter down; private foundations and trusts well down, supporting organisations a little; ineligible down', () => {
  const base = prominence(standing());
  assert.equal(prominence(standing({ affiliation: '1' })) - base, 1);
  assert.equal(prominence(standing({ affiliation: '9' })) - base, -0.5);
  for (const s of [{ foundation: '04' }, { organization: '6' }, { status: '12' }]) assert.equal(prominence(standing(s)) - base, -2.5, JSON.stringify(s));
  assert.equal(prominence(standing({ subsection: '92', foundation: '00' })) - base, -3, 'a trust, and not a 501(c)(3)');
  assert.equal(prominence(standing({ foundation: '21' })) - base, -0.5);
  assert.equal(prominence(standing({ eligible: 0 })) - base, -1.5);
});

test('rewrites: a rare word split where both halves are used; two words joined when names use them as one; at most the limit', () => {
  const df = (w: string) => ({ red: 5000, cross: 3000, re: 10, dcross: 0, childfund: 4, child: 9000, fund: 20000 })[w] ?? 0;
  assert.deepEqual(rewrites(['redcross'], df, 50), [['red', 'cross']]);
  assert.deepEqual(rewrites(['child', 'fund'], df, 50), [['childfund']]);
  assert.deepEqual(rewrites(['cross'], df, 50), [], 'a common word is not split');
  assert.deepEqual(rewrites(['child', 'of', 'fund'], df, 50), [], 'filler is not joined');
  assert.equal(rewrites(['redcross', 'redcross', 'redcross'], df, 50, 2).length, 2);
});

test('the best k are the first k of the whole order, ties broken by income, assets, name and id', () => {
  const scored = fc.array(
    fc.record({
      id: fc.nat(1_000),
      score: fc.constantFrom(Infinity, 3, 2.5, 0, -1),
      income: fc.constantFrom(0, 10, 500),
      asset: fc.constantFrom(0, 7),
      at: fc.nat(5),
    }),
    { maxLength: 400 },
  );
  const names = ['Alder', 'Birch', 'Cedar', 'alder', 'Birch Trust', 'Cedar'];
  const nameAt = (at: number) => names[at] as string;
  const copy = (list: Scored[]) => list.map((s) => ({ id: s.id, score: s.score, income: s.income, asset: s.asset, at: s.at }));
  fc.assert(
    fc.property(scored, fc.nat(450), (list, k) => {
      const whole = copy(list).sort(
        (a, b) => b.score - a.score || b.income - a.income || b.asset - a.asset || (nameAt(a.at) < nameAt(b.at) ? -1 : nameAt(a.at) > nameAt(b.at) ? 1 : 0) || a.id - b.id,
      );
      const strip = (l: Scored[]) => l.map((s) => `${s.id}/${s.score}/${s.income}/${s.asset}/${s.at}`);
      assert.deepEqual(strip(best(copy(list), k, nameAt)), strip(whole.slice(0, k)));
    }),
    { numRuns: 500 },
  );
});
