// How many organisations a search says it found, when more use its words than
// one search reads (ADR 7): on an imported file of 42,500 organisations, so
// that one word is used by more organisations than the index is read for.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, describeEachEngine, makeUser } from './harness.ts';
import { importBmf } from '../src/modules/nonprofits/import.service.ts';
import { WebClient, textOf } from './web-client.ts';

const HEADER =
  'EIN,NAME,ICO,STREET,CITY,STATE,ZIP,GROUP,SUBSECTION,AFFILIATION,CLASSIFICATION,RULING,DEDUCTIBILITY,FOUNDATION,ACTIVITY,ORGANIZATION,STATUS,TAX_PERIOD,ASSET_CD,INCOME_CD,FILING_REQ_CD,PF_FILING_REQ_CD,ACCT_PD,ASSET_AMT,INCOME_AMT,REVENUE_AMT,NTEE_CD,SORT_NAME';

/** A BMF file of `names` (each with its income), EINs from `firstEin`. */
function bmfFile(dir: string, file: string, firstEin: number, names: Array<[string, number]>): string {
  const lines = names.map(
    ([name, income], i) => `${firstEin + i},${name},,1 MAIN ST,BURLINGTON,VT,05401,0000,03,3,1000,200001,1,15,000000000,1,01,202406,0,0,01,0,12,0,${income},${income},T20,`,
  );
  const path = join(dir, file);
  writeFileSync(path, `${[HEADER, ...lines].join('\r\n')}\r\n`, 'latin1');
  return path;
}

const many = (n: number, name: (i: number) => string, income: number): Array<[string, number]> => Array.from({ length: n }, (_, i) => [name(i), income]);

describeEachEngine('search counts past what one search reads', (env) => {
  test('a word too common to check on rows alone is looked up while more organisations are left than are read; past its limit the count says it is a lower bound', async () => {
    const { app, deps } = env();
    const dir = mkdtempSync(join(tmpdir(), 'almoner-counts-'));
    try {
      // 3,100 use "harbor": the 2,100 biggest do not use "common", the 1,000 smallest do; 30,000 more use "common".
      const first = [
        ...many(600, (i) => `HARBOR WATCH GROUP ${i}`, 2_000_000),
        ...many(1_500, (i) => `HARBOR LIGHTS CLUB ${i}`, 1_000_000),
        ...many(1_000, (i) => `HARBOR COMMON AID ${i}`, 500),
        ...many(30_000, (i) => `COMMON GOOD SOCIETY ${i}`, 2_000),
      ];
      await importBmf(deps, [bmfFile(dir, 'eo_one.csv', 300_000_000, first)]);
      const user = await makeUser(deps);
      const search = async (query: string) => (await call(app, 'GET', `/v1/non_profits?${query}`, { key: user.key })).body;

      // "common" (31,000 users) is looked up: all 1,000 are found, and the count is exact.
      const found = await search('query=harbor+common');
      assert.deepEqual([found.meta.count, 'count_capped' in found.meta], [1_000, false]);
      assert.match(found.items[0].name, /^Harbor Common Aid /);

      // "harbor" alone: more than 2,000 use it, all of them match; the first page is the biggest ones,
      // and a page past the first 1,000 is there too.
      const harbor = await search('query=harbor');
      assert.deepEqual([harbor.meta.count, harbor.meta.count_capped], [2_000, true]);
      assert.match(harbor.items[0].name, /^Harbor Watch Group /);
      const deep = await search('query=harbor&page=40');
      assert.equal(deep.items.length, 50);
      assert.deepEqual([deep.meta.count, deep.meta.last, deep.meta.count_capped], [2_000, 40, true]);
      const inVermont = await search('query=harbor&state=VT');
      assert.deepEqual([inVermont.meta.count, inVermont.meta.count_capped], [2_000, true]);

      // 10,000 more use "common" (41,000): too many to look up. The 2,000 biggest users of "harbor"
      // are read and checked for "common": none uses it, and the count says it is a lower bound; so does the web.
      await importBmf(deps, [
        bmfFile(
          dir,
          'eo_two.csv',
          310_000_000,
          many(10_000, (i) => `COMMON WEALTH FUND ${i}`, 2_000),
        ),
      ]);
      const capped = await search('query=harbor+common');
      assert.deepEqual([capped.meta.count, capped.meta.count_capped], [0, true]);
      const page = textOf((await new WebClient(app).get('/charities?query=harbor+common')).body);
      assert.match(page, /None of the largest organisations using these words matches them all: add a word or a filter\./);
      assert.doesNotMatch(page, /No non-profit matches/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
