// Every function of nonprofits.store.ts on both engines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CompiledQuery } from 'kysely';
import { describeEachEngine } from '../../../test/harness.ts';
import { CAUSES } from './causes.ts';
import * as store from './nonprofits.store.ts';

describeEachEngine('nonprofits store', (env) => {
  const input = (ein: string, name: string, extra: Partial<store.NonProfitInput> = {}): store.NonProfitInput => ({
    ein,
    name,
    ...store.NO_IRS_DETAILS,
    name_lower: name.toLowerCase(),
    website: null,
    city: 'Burlington',
    state: 'VT',
    zip: '05401',
    latitude: 44.47,
    longitude: -73.21,
    ntee_code: 'B20',
    cause_id: 2,
    eligible: 1,
    slug: `/charities/${ein}-x`,
    income_amt: 10,
    asset_amt: 20,
    tax_period: '202401',
    ...extra,
  });
  const at = '2026-01-01T00:00:00Z';

  test('seedCauses writes every cause, idempotently', async () => {
    const { db } = env().deps;
    await store.seedCauses(db);
    await store.seedCauses(db);
    const rows = await db.selectFrom('causes').select('id').execute();
    assert.equal(rows.length, CAUSES.length);
  });

  test('upsert adds, updates (each raising the records epoch, rewriting the words) or leaves unchanged; findByEin and findByEins read with toNonProfit', async () => {
    const { db } = env().deps;
    const epoch = await store.recordsEpoch(db);
    assert.equal(await store.upsert(db, input('100000001', 'Lake Champlain Land Trust'), at), 'added');
    assert.equal(await store.recordsEpoch(db), epoch + 1, 'an organisation added is one searches find: nodes drop the directory they hold');
    assert.equal(await store.upsert(db, input('100000001', 'Lake Champlain Land Trust'), at), 'unchanged');
    assert.equal(await store.recordsEpoch(db), epoch + 1, 'leaving it shows nothing new');
    assert.equal(await store.upsert(db, input('100000001', 'Champlain Valley Trust'), at), 'updated');
    assert.equal(await store.recordsEpoch(db), epoch + 2);
    const words = await db.selectFrom('non_profit_words as w').innerJoin('non_profits as n', 'n.id', 'w.non_profit_id').select('w.word').where('n.ein', '=', '100000001').execute();
    assert.ok(words.some((w) => w.word === 'valley') && !words.some((w) => w.word === 'lake'), 'the words follow the name');
    const found = await store.findByEin(db, '100000001');
    assert.deepEqual(
      { ...found, id: 0 },
      {
        id: 0,
        ein: '100000001',
        name: 'Champlain Valley Trust',
        website: null,
        city: 'Burlington',
        state: 'VT',
        latitude: 44.47,
        longitude: -73.21,
        cause_id: 2,
        eligible: true,
        public_path: '/charities/100000001-x',
        removed: false,
        foundation: '',
        diligence: 'clear',
      },
    );
    assert.equal(await store.findByEin(db, '999999999'), undefined);
    const size = await store.directorySize(db);
    assert.ok(size >= 1, 'the organisations just added are counted');
    await db.updateTable('non_profits').set({ removed_at: '2026-01-01T00:00:00Z' }).where('ein', '=', '100000001').execute();
    assert.equal(await store.directorySize(db), size - 1, 'one marked removed is not');
    await db.updateTable('non_profits').set({ removed_at: null }).where('ein', '=', '100000001').execute();
    const details = await store.irsDetailsOf(db, (found as store.NonProfit).id);
    assert.deepEqual(
      { ...details },
      { ...store.NO_IRS_DETAILS, city: 'Burlington', state: 'VT', zip: '05401', ntee_code: 'B20', income_amt: 10, asset_amt: 20, tax_period: '202401', removed_at: null },
    );
    assert.equal(await store.irsDetailsOf(db, -1), undefined);
    await store.upsert(db, input('100000002', 'Second Org'), at);
    assert.deepEqual((await store.findByEins(db, ['100000002', '100000001', '999999999'])).map((n) => n.ein).sort(), ['100000001', '100000002']);
    assert.deepEqual(
      (await store.findByEins(db, ['100000002'])).map((n) => n.name),
      ['Second Org'],
    );
    assert.deepEqual(await store.findByEins(db, []), []);
    assert.equal(store.toNonProfit({ ...input('1', 'x'), id: 5, removed_at: '2026-01-01' } as never).removed, true);
  });

  test('cardRows reads many ids; bumpRecordsEpoch raises the records epoch; einsOfSource lists a source in import order', async () => {
    const {
      deps: { db },
      engine,
    } = env();
    await store.upsert(db, input('100000003', 'Card One'), at);
    await store.upsert(db, input('100000004', 'Card Two', { eligible: 0 }), at);
    const ids = (await db.selectFrom('non_profits').select('id').where('ein', 'in', ['100000003', '100000004']).orderBy('id').execute()).map((r) => r.id);
    const cards = await store.cardRows(db, ids);
    assert.deepEqual(cards.map((c) => c.name).sort(), ['Card One', 'Card Two']);
    const before = await store.recordsEpoch(db);
    // recordsEpochIs: a guarded write's condition (PostgreSQL), true only while the epoch is the one given.
    const holds = async (epoch: number) => {
      const params: unknown[] = [];
      const text = `select ${store.recordsEpochIs(epoch)(params)} as ok`;
      return (await db.executeQuery<{ ok: boolean }>(CompiledQuery.raw(text, params))).rows[0]?.ok;
    };
    if (engine === 'postgres') assert.equal(await holds(before), true);
    await store.bumpRecordsEpoch(db);
    assert.equal(await store.recordsEpoch(db), before + 1);
    if (engine === 'postgres') assert.deepEqual([await holds(before), await holds(before + 1)], [false, true]);
    await db.updateTable('non_profits').set({ source: 'file-a' }).where('id', 'in', ids).execute();
    assert.deepEqual(await store.einsOfSource(db, 'file-a'), [
      { ein: '100000003', eligible: true },
      { ein: '100000004', eligible: false },
    ]);
    assert.deepEqual(await store.einsOfSource(db, 'file-b'), []);
  });
});
