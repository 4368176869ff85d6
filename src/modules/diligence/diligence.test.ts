// The list readers and the name-matching rule of docs/rules.md §16.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { compareNames, editDistance, irsDate, nameKey, pub78Refusal, readPub78, readRevocations, readSdn } from './diligence.ts';

const fixture = (name: string) => readFileSync(new URL(`../../../test/fixtures/diligence/${name}`, import.meta.url), 'utf8');

test("irsDate reads the lists' 15-MAY-2010 dates, and nothing else", () => {
  assert.equal(irsDate('15-MAY-2010'), '2010-05-15');
  assert.equal(irsDate('01-feb-2013'), '2013-02-01');
  for (const bad of ['2010-05-15', '31-FEB-2020', '15-MAI-2010', '5-MAY-2010', '']) assert.equal(irsDate(bad), null, bad);
});

test('the three lists are read as published', () => {
  const revocations = readRevocations(fixture('revocations.txt'));
  assert.ok(revocations.ok);
  assert.deepEqual(revocations.entries[1], { ein: '222222222', name: 'RIVER VALLEY FRIENDS', revoked_on: '2011-05-15', reinstated_on: '2013-02-01' });
  assert.equal(revocations.entries[0]?.reinstated_on, null);
  const pub78 = readPub78(fixture('pub78.txt'));
  assert.ok(pub78.ok);
  assert.deepEqual(
    pub78.entries.map((e) => [e.ein, e.codes, pub78Refusal(e.codes)]),
    [
      ['261544963', 'PC', undefined],
      ['444444444', 'PF', 'private_foundation'],
      ['555555555', 'SONFI', 'supporting_organization'],
      ['666666666', 'PC,LODGE', undefined],
    ],
  );
  const sdn = readSdn(fixture('sdn.csv'));
  assert.ok(sdn.ok);
  assert.equal(sdn.entries.length, 5, 'the end-of-file byte is no entry');
  assert.deepEqual(sdn.entries[1], { entry: 173, name: 'ANGLO-CARIBBEAN CO., LTD.', name_key: 'ANGLO CARIBBEAN', kind: 'entity', program: 'CUBA' });
  assert.equal(sdn.entries[4]?.kind, 'individual');
});

test('a file with any line not as published is refused, naming its lines', () => {
  const cases: Array<[string, ReturnType<typeof readRevocations>]> = [
    ['a short line', readRevocations('111111111|NAME|x\n')],
    ['a bad EIN', readRevocations('11111111X|A||||||US|03|15-MAY-2010|08-JUN-2011|\n')],
    ['a bad date', readRevocations('111111111|A||||||US|03|2010-05-15|08-JUN-2011|\n')],
    ['an empty file', readRevocations('\r\n')],
  ];
  for (const [what, parsed] of cases) assert.equal(parsed.ok, false, what);
  const mixed = readPub78('261544963|A|B|VT|US|PC\n26154496|B|C|VT|US|PC\n261544963|A|B|VT|US|not a code\n');
  assert.ok(!mixed.ok);
  assert.deepEqual(
    mixed.bad.map((b) => b.line),
    [2, 3],
  );
  assert.equal(readSdn('"unterminated,x\n').ok, false);
  assert.equal(readSdn('abc,"NAME",-0-,"X",-0-,-0-,-0-,-0-,-0-,-0-,-0-,-0-\n').ok, false);
  assert.equal(readSdn('1,"NAME",-0-\n').ok, false, 'too few columns');
});

test('nameKey: capitals, no accents or punctuation, & as AND, no legal-form words', () => {
  assert.equal(nameKey('The Anglo-Caribbean Co., Ltd.'), 'ANGLO CARIBBEAN');
  assert.equal(nameKey('Café  Société & Fils, Inc'), 'CAFE SOCIETE AND FILS');
  assert.equal(nameKey('...'), '');
});

test('compareNames: exact, the three kinds of close match, and no match', () => {
  assert.equal(compareNames(nameKey('Holy Land Relief Fund, Inc.'), nameKey('HOLY LAND RELIEF FUND')), 'exact');
  assert.equal(compareNames(nameKey('Relief Fund Holy Land'), nameKey('HOLY LAND RELIEF FUND')), 'the same words in another order');
  assert.match(
    compareNames(nameKey('Global Charitable Foundation for Orphan'), nameKey('GLOBAL CHARITABLE FOUNDATION FOR ORPHANS')) ?? '',
    /^spelled nearly the same \(9\d% alike\)$/,
  );
  assert.equal(compareNames(nameKey('Friends of the Holy Land Relief Fund'), nameKey('HOLY LAND RELIEF FUND')), 'the listed name is part of its name');
  assert.equal(compareNames(nameKey('Vermont Foodbank'), nameKey('HOLY LAND RELIEF FUND')), undefined);
  assert.equal(compareNames(nameKey('Smith Family Foundation'), nameKey('SMITH, John')), undefined, 'one shared word is no match');
  assert.equal(compareNames('', 'X'), undefined);
  assert.equal(editDistance('kitten', 'sitting'), 3);
});
