// The national directory on real IRS files (../shared/data/nonprofits):
// imports, re-imports of an older and a newer snapshot of one state, a
// truncated file, broken rows, an interrupted import run again; and the
// relevance of search, on both engines.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { engines, openEnv, makeUser, fund, call, type TestEnv } from './harness.ts';
import { importBmf } from '../src/modules/nonprofits/import.service.ts';
import { parseCsvLine } from '../src/modules/nonprofits/bmf.ts';
import { tokenize } from '../src/modules/nonprofits/nonprofits.ts';
import { upsert as upsertNonProfit } from '../src/modules/nonprofits/nonprofits.store.ts';
import { openPlatform } from '../src/platform.ts';
import { runCheck } from '../src/modules/check/index.ts';
import { buildApp } from '../src/app.ts';
import pino from 'pino';
import { sql } from 'kysely';

const DATA = join(process.cwd(), '..', 'shared', 'data', 'nonprofits');
const BMF = join(DATA, 'bmf');
const ZIPS = join(DATA, 'geo', 'zip_centroids_2021_zcta.csv.gz');
const present = existsSync(join(BMF, 'eo_vt.csv.gz'));
if (!present) process.stderr.write(`\n*** ${DATA} is not there: the directory tests on real IRS files are SKIPPED. ***\n\n`);

/** The lines of a real BMF file (header first), CRLF removed. */
function bmfLines(file: string): string[] {
  return gunzipSync(readFileSync(join(BMF, file)))
    .toString('latin1')
    .split('\r\n')
    .filter((l) => l !== '');
}

function writeBmf(dir: string, name: string, lines: string[]): string {
  const path = join(dir, name);
  writeFileSync(path, `${lines.join('\r\n')}\r\n`, 'latin1');
  return path;
}

for (const { name: engine } of engines()) {
  describe(`directory import on ${engine}`, { skip: !present && 'no IRS data beside the project' }, () => {
    let env: TestEnv;
    let dir: string;
    before(async () => {
      env = await openEnv(engine);
      dir = mkdtempSync(join(tmpdir(), 'almoner-bmf-'));
    });
    after(async () => {
      await env.close();
      rmSync(dir, { recursive: true, force: true });
    });

    const count = async (where: 'all' | 'removed' = 'all') => {
      let q = env.deps.db.selectFrom('non_profits').select((eb) => eb.fn.countAll<number>().as('n'));
      if (where === 'removed') q = q.where('removed_at', 'is not', null);
      return Number((await q.executeTakeFirstOrThrow()).n);
    };

    test('an older snapshot, then the real one, then a newer one: added, updated, unchanged, removed', async () => {
      const lines = bmfLines('eo_vt.csv.gz');
      const header = lines[0] as string;
      const rows = lines.slice(1);
      const columns = parseCsvLine(header);
      const nameAt = columns.indexOf('NAME');
      const periodAt = columns.indexOf('TAX_PERIOD');
      // The older snapshot: 40 organisations not founded yet, 25 under an earlier name (and an earlier filing, where they have one).
      // And 10 more with another income under the same name (search ranks by it).
      const incomeAt = columns.indexOf('INCOME_AMT');
      const older = rows.slice(40).map((line, i) => {
        if (i >= 35) return line;
        const f = parseCsvLine(line);
        if (i < 25) {
          f[nameAt] = `${f[nameAt]} OLD NAME`;
          if ((f[periodAt] ?? '') > '201912') f[periodAt] = '201912';
        } else {
          f[incomeAt] = String(Number(f[incomeAt] || 0) + 12_345);
        }
        return f.map((v) => (/[",]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v)).join(',');
      });
      const first = await importBmf(env.deps, [writeBmf(dir, 'eo_vt.csv', [header, ...older])], { zipCentroids: ZIPS });
      assert.equal(first.rejected, 0, JSON.stringify(first.rejections.slice(0, 3)));
      assert.equal(first.added + first.updated, rows.length - 40);
      if (engine === 'postgres') {
        // So that index-only reads of the word index (the count, nodes' images) need not visit the table.
        const { rows: vacuumed } = await sql<{ n: number }>`select count(*)::int as n from pg_stat_user_tables
          where schemaname = current_schema() and relname in ('non_profits', 'non_profit_words') and last_vacuum is not null`.execute(env.deps.db);
        assert.equal(vacuumed[0]?.n, 2, 'the import vacuumed the organisations and their words');
      }

      const real = await importBmf(env.deps, [join(BMF, 'eo_vt.csv.gz')], { zipCentroids: ZIPS });
      assert.equal(real.added, 40);
      assert.ok(real.updated >= 35, `updated ${real.updated}`);
      const sizes = (await runCheck(env.deps)).find((r) => r.name === "every search word carries its organisation's size");
      assert.deepEqual(sizes?.failures, [], 'the word index has the new incomes');
      assert.equal(real.added + real.updated + real.unchanged + real.older + real.rejected, rows.length);
      assert.equal(real.removed, 0);
      const renamed = parseCsvLine(rows[40] as string);
      const np = await call(env.app, 'GET', `/v1/non_profits/${renamed[0]}`, { key: (await makeUser(env.deps)).key });
      assert.doesNotMatch(np.body.name, /Old Name/, 'the newer name replaced the older');

      // The newer snapshot no longer lists the last 30.
      const newer = await importBmf(env.deps, [writeBmf(dir, 'eo_vt.csv', [header, ...rows.slice(0, rows.length - 30)])], { zipCentroids: ZIPS });
      assert.equal(newer.removed, 30);
      assert.equal(await count('removed'), 30);

      // Importing the older snapshot again changes nothing that a newer filing set, and removes nothing new.
      const again = await importBmf(env.deps, [writeBmf(dir, 'eo_vt.csv', [header, ...older])], { zipCentroids: ZIPS });
      assert.ok(again.older >= 1, `kept newer ${again.older}`);
      const stillNew = await call(env.app, 'GET', `/v1/non_profits/${parseCsvLine(rows[50] as string)[0]}`, { key: (await makeUser(env.deps)).key });
      assert.equal(stillNew.status, 200);
    });

    test('a donation shows its organisation as the directory has it now, on every node, even after an import cut off half-way', async () => {
      const lines = bmfLines('eo_vt.csv.gz');
      const columns = parseCsvLine(lines[0] as string);
      const target = await env.deps.db
        .selectFrom('non_profits')
        .select('ein')
        .where('eligible', '=', 1)
        .where('removed_at', 'is', null)
        .where(
          'ein',
          'in',
          lines.slice(100, 200).map((l) => l.slice(0, 9)),
        )
        .orderBy('id')
        .executeTakeFirstOrThrow();
      const ein = target.ein;
      const fields = parseCsvLine(lines.find((l) => l.startsWith(`${ein},`)) as string);
      const donor = await makeUser(env.deps);
      await fund(env.deps, donor, 10_000);
      // Another node: its own connection and its own memory.
      const other = await openPlatform(env.deps.config, { log: pino({ level: 'silent' }) });
      const otherApp = await buildApp(other.deps);
      try {
        assert.equal((await call(env.app, 'POST', '/v1/donations', { key: donor.key, body: { amount: 10, ein } })).status, 201);
        const shown = async () =>
          Promise.all(
            [env.app, otherApp].map(async (app) => {
              const res = await call(app, 'GET', '/v1/donations', { key: donor.key });
              return res.body.items.find((d: { non_profit: { ein: string } }) => d.non_profit.ein === ein).non_profit.name as string;
            }),
          );
        const before = await shown();
        assert.equal(before[0], before[1]);
        assert.doesNotMatch(before[0] as string, /Renamed/);

        // A newer file renames it; the import stops right after its (only) batch committed.
        fields[columns.indexOf('NAME')] = 'GREEN MOUNTAIN RENAMED TRUST';
        const file = writeBmf(dir, 'eo_vt.csv', [lines[0] as string, fields.map((v) => (/[",]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v)).join(',')]);
        await assert.rejects(
          importBmf(env.deps, [file], {
            zipCentroids: ZIPS,
            onProgress: () => {
              throw new Error('power cut');
            },
          }),
          /power cut/,
        );
        assert.deepEqual(await shown(), ['Green Mountain Renamed Trust', 'Green Mountain Renamed Trust']);

        // A change through upsert (the demo seed's path) shows at once as well.
        const row = await env.deps.db.selectFrom('non_profits').selectAll().where('ein', '=', ein).executeTakeFirstOrThrow();
        const { id: _id, created_at: _c, updated_at: _u, source: _s, last_seen_run: _l, removed_at: _r, ...input } = row;
        await upsertNonProfit(env.deps.db, { ...input, name: 'Green Mountain Trust', city: 'Montpelier' }, new Date().toISOString());
        const after = await Promise.all([env.app, otherApp].map(async (app) => (await call(app, 'GET', '/v1/donations', { key: donor.key })).body.items[0].non_profit));
        for (const np of after) {
          assert.equal(np.name, 'Green Mountain Trust');
          assert.equal(np.city, 'Montpelier');
        }
      } finally {
        await otherApp.close();
        await other.close();
      }
    });

    test('a removed organisation is not found by search and cannot receive donations', async () => {
      const removed = await env.deps.db.selectFrom('non_profits').select(['ein', 'name']).where('removed_at', 'is not', null).where('eligible', '=', 1).executeTakeFirstOrThrow();
      const donor = await makeUser(env.deps);
      await fund(env.deps, donor, 10_000);
      const res = await call(env.app, 'POST', '/v1/donations', { key: donor.key, body: { amount: 10, ein: removed.ein } });
      assert.equal(res.status, 422);
      assert.equal(res.body.code, 'non_profit_ineligible');
      const found = await call(env.app, 'GET', `/v1/non_profits?query=${removed.ein}`, { key: donor.key });
      assert.equal(
        found.body.items.some((n: { ein: string }) => n.ein === removed.ein),
        false,
      );
    });

    test('display names, eligibility, causes, coordinates and paths come from the BMF fields', async () => {
      const key = (await makeUser(env.deps)).key;
      const np = await call(env.app, 'GET', '/v1/non_profits/030219309', { key });
      assert.equal(np.body.name, 'University of Vermont Medical Center Inc');
      assert.equal(np.body.city, 'Burlington');
      assert.equal(np.body.state, 'VT');
      assert.equal(np.body.cause.name, 'Health');
      assert.ok(Math.abs(np.body.latitude - 44.48) < 0.1 && Math.abs(np.body.longitude + 73.2) < 0.1, `${np.body.latitude},${np.body.longitude}`);
      assert.equal(np.body.public_path, '/charities/030219309-university-of-vermont-medical-center-inc-burlington-vt');
      const ineligible = await env.deps.db.selectFrom('non_profits').select('ein').where('eligible', '=', 0).where('source', '=', 'eo_vt').executeTakeFirstOrThrow();
      assert.equal((await call(env.app, 'GET', `/v1/non_profits/${ineligible.ein}`, { key })).status, 200, 'ineligible organisations stay visible');
    });

    test('broken rows are reported with file and line; the good ones are imported', async () => {
      const lines = bmfLines('eo_ri.csv.gz');
      const good = lines.slice(1, 6);
      const broken = [
        `12345,SHORT EIN ORG,,,PROVIDENCE,RI,02903,0000,03,3,1000,200211,1,15,000000000,1,01,202406,6,4,01,0,06,1,1,1,A20,`,
        `051234567,,,,PROVIDENCE,RI,02903,0000,03,3,1000,200211,1,15,000000000,1,01,202406,6,4,01,0,06,1,1,1,A20,`,
        `051234568,BAD ZIP ORG,,,PROVIDENCE,RI,ABCDE,0000,03,3,1000,200211,1,15,000000000,1,01,202406,6,4,01,0,06,1,1,1,A20,`,
        `051234569,TOO FEW FIELDS,PROVIDENCE,RI`,
        `051234570,BAD STATE ORG,,,PROVIDENCE,Rhode Island,02903,0000,03,3,1000,200211,1,15,000000000,1,01,202406,6,4,01,0,06,1,1,1,A20,`,
      ];
      const file = writeBmf(dir, 'eo_broken.csv', [lines[0] as string, ...good.slice(0, 2), ...broken, ...good.slice(2)]);
      const summary = await importBmf(env.deps, [file], { zipCentroids: ZIPS });
      assert.equal(summary.rejected, 5);
      assert.deepEqual(
        summary.rejections.map((r) => `${r.file}:${r.line}`),
        ['eo_broken.csv:4', 'eo_broken.csv:5', 'eo_broken.csv:6', 'eo_broken.csv:7', 'eo_broken.csv:8'],
      );
      assert.match(summary.rejections[0]?.reason ?? '', /EIN "12345" is not 9 digits/);
      assert.match(summary.rejections[1]?.reason ?? '', /NAME is empty/);
      assert.match(summary.rejections[2]?.reason ?? '', /ZIP "ABCDE"/);
      assert.match(summary.rejections[3]?.reason ?? '', /4 fields where the header has 28/);
      assert.equal(summary.added + summary.unchanged + summary.updated, 5);
      const notBmf = await importBmf(env.deps, [writeBmf(dir, 'other.csv', ['A,B,C', '1,2,3'])]);
      assert.match(notBmf.rejections[0]?.reason ?? '', /not an EO BMF file/);
    });

    test('a truncated file keeps what was read, is reported, and removes nothing', async () => {
      const before = await count('removed');
      const gz = readFileSync(join(BMF, 'eo_nd.csv.gz'));
      const path = join(dir, 'eo_nd.csv.gz');
      writeFileSync(path, gz.subarray(0, Math.floor(gz.length / 2)));
      const summary = await importBmf(env.deps, [path], { zipCentroids: ZIPS });
      assert.ok(summary.added > 1000, `kept ${summary.added} rows read before the cut`);
      assert.equal(summary.rejections.at(-1)?.file, 'eo_nd.csv.gz');
      assert.match(summary.rejections.at(-1)?.reason ?? '', /could not be read to its end/);
      assert.equal(summary.removed, 0);
      assert.equal(await count('removed'), before);
      const whole = await importBmf(env.deps, [join(BMF, 'eo_nd.csv.gz')], { zipCentroids: ZIPS });
      assert.equal(whole.rejected, 0);
      assert.equal(whole.added + whole.unchanged + whole.updated, bmfLines('eo_nd.csv.gz').length - 1);
    });

    test('an import interrupted half-way and run again ends as one complete import', async () => {
      const total = bmfLines('eo_sd.csv.gz').length - 1;
      await assert.rejects(
        importBmf(env.deps, [join(BMF, 'eo_sd.csv.gz')], {
          zipCentroids: ZIPS,
          onProgress: () => {
            throw new Error('power cut');
          },
        }),
        /power cut/,
      );
      const again = await importBmf(env.deps, [join(BMF, 'eo_sd.csv.gz')], { zipCentroids: ZIPS });
      assert.equal(again.added + again.unchanged, total);
      assert.ok(again.unchanged > 0, 'the first batch was kept');
      assert.equal(again.removed, 0);
      const sd = await env.deps.db
        .selectFrom('non_profits')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('source', '=', 'eo_sd')
        .executeTakeFirstOrThrow();
      assert.equal(Number(sd.n), total);
    });
  });

  describe(`directory search relevance on ${engine}`, { skip: !present && 'no IRS data beside the project' }, () => {
    let env: TestEnv;
    let key: string;
    const FILES = ['eo_vt.csv.gz', 'eo_ri.csv.gz', 'eo_dc.csv.gz'];

    before(async () => {
      env = await openEnv(engine);
      await importBmf(
        env.deps,
        FILES.map((f) => join(BMF, f)),
        { zipCentroids: ZIPS },
      );
      key = (await makeUser(env.deps)).key;
    });
    after(async () => env.close());

    /** 300 queries from 50 real organisations: exact, prefix, one typo, two typos, word order, with city. */
    async function queries(): Promise<Array<{ kind: string; query: string; ein: string }>> {
      const rows = await env.deps.db.selectFrom('non_profits').select(['ein', 'name', 'city']).orderBy('ein').execute();
      const byWord = new Map<string, Set<string>>();
      const words = new Map(rows.map((r) => [r.ein, tokenize(r.name)]));
      for (const [ein, ws] of words) for (const w of ws) (byWord.get(w) ?? (byWord.set(w, new Set()).get(w) as Set<string>)).add(ein);
      // Distinctive names: two to six words, one of them at least 8 letters, and no other organisation has all their words.
      const chosen = rows.filter((r) => {
        const ws = words.get(r.ein) as string[];
        if (ws.length < 2 || ws.length > 6 || !ws.some((w) => w.length >= 8) || ws.some((w) => /\d/.test(w))) return false;
        const sharing = ws.map((w) => byWord.get(w) as Set<string>).reduce((acc, set) => new Set([...acc].filter((e) => set.has(e))));
        return sharing.size === 1;
      });
      const step = Math.floor(chosen.length / 50);
      const picked = Array.from({ length: 50 }, (_, i) => chosen[i * step] as (typeof rows)[number]);
      const typo = (w: string, at: number) => w.slice(0, at) + (w[at + 1] ?? '') + (w[at] ?? '') + w.slice(at + 2); // swap two letters
      const out: Array<{ kind: string; query: string; ein: string }> = [];
      for (const r of picked) {
        const ws = words.get(r.ein) as string[];
        const longest = ws.reduce((a, b) => (b.length > a.length ? b : a));
        const li = ws.indexOf(longest);
        const second = ws
          .map((w, i) => [w, i] as const)
          .filter(([w, i]) => i !== li && w.length >= 4)
          .sort((a, b) => b[0].length - a[0].length)[0];
        const twoTypos =
          longest.length >= 8
            ? ws.map((w, i) => (i === li ? typo(typo(w, 1), 5) : w))
            : ws.map((w, i) => (i === li ? typo(w, 1) : second !== undefined && i === second[1] ? typo(w, 1) : w));
        out.push(
          { kind: 'exact', query: r.name, ein: r.ein },
          { kind: 'prefix', query: [...ws.slice(0, -1), (ws.at(-1) as string).slice(0, 3)].join(' '), ein: r.ein },
          { kind: 'one typo', query: ws.map((w, i) => (i === li ? typo(w, 2) : w)).join(' '), ein: r.ein },
          { kind: 'two typos', query: twoTypos.join(' '), ein: r.ein },
          { kind: 'word order', query: [...ws].reverse().join(' '), ein: r.ein },
          { kind: 'with city', query: `${r.name} ${r.city}`, ein: r.ein },
        );
      }
      return out;
    }

    test('at least 97% of 300 queries from real names find the organisation in the top 5', async () => {
      const qs = await queries();
      assert.equal(qs.length, 300);
      const misses: string[] = [];
      const byKind = new Map<string, number>();
      for (const q of qs) {
        const res = await call(env.app, 'GET', `/v1/non_profits?per_page=5&query=${encodeURIComponent(q.query)}`, { key });
        assert.equal(res.status, 200);
        const hit = res.body.items.some((n: { ein: string }) => n.ein === q.ein);
        if (!hit) {
          misses.push(`${q.kind}: "${q.query}" -> ${res.body.items.map((n: { name: string }) => n.name).join(' | ') || '(nothing)'}`);
          byKind.set(q.kind, (byKind.get(q.kind) ?? 0) + 1);
        }
      }
      const rate = 1 - misses.length / qs.length;
      process.stdout.write(`relevance on ${engine}: ${(rate * 100).toFixed(1)}% in the top 5; misses by kind: ${JSON.stringify(Object.fromEntries(byKind))}\n`);
      assert.ok(rate >= 0.97, `only ${(rate * 100).toFixed(1)}% found:\n${misses.slice(0, 20).join('\n')}`);
    });

    test('the same query gives the same page on both engines (ranking is engine-independent)', async () => {
      const res = await call(env.app, 'GET', '/v1/non_profits?per_page=10&query=habitat%20humanity', { key });
      assert.ok(res.body.items.length > 0);
      for (const item of res.body.items) assert.match(item.name, /Habitat/i);
      const byState = await call(env.app, 'GET', '/v1/non_profits?per_page=5&query=habitat%20humanity&state=RI', { key });
      for (const item of byState.body.items) assert.equal(item.state, 'RI');
      const near = await call(env.app, 'GET', '/v1/non_profits?per_page=50&near=44.4759,-73.2121&radius_km=10', { key });
      assert.ok(near.body.items.length > 0);
      for (const item of near.body.items) assert.ok(Math.abs(item.latitude - 44.4759) < 0.2, `${item.name} is near Burlington`);
      const cause = await call(env.app, 'GET', '/v1/non_profits?per_page=20&query=school&cause_id=2', { key });
      for (const item of cause.body.items) assert.equal(item.cause.id, 2);
      const bad = await call(env.app, 'GET', '/v1/non_profits?near=north', { key });
      assert.equal(bad.status, 400);
      assert.equal(bad.body.code, 'invalid_parameter');
    });
  });
}
