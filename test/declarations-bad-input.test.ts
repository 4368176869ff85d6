// Malformed declarations, for every type a donor may declare, through the API
// (JSON) and the web app's form, on both engines: each is refused with its
// problem, and the database is the same afterwards.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { call, engines, fingerprint, makeUser, openEnv, type TestEnv, type TestUser } from './harness.ts';
import { WebClient, textOf } from './web-client.ts';
import { RAILS } from '../src/modules/contributions/index.ts';

const CASH = Object.entries(RAILS)
  .filter(([, rail]) => rail.asset === 'cash')
  .map(([type]) => type);
const UNITS = Object.entries(RAILS)
  .filter(([, rail]) => rail.asset === 'units')
  .map(([type]) => type);

/** Bodies of POST /v1/contributions that must be refused, for a type declared in dollars. */
function badCashBodies(type: string): unknown[] {
  const amounts: unknown[] = [0, 0.5, 0.99, -5, -0.01, 10.005, 1.001, 0.001, 1e12, 10_000_000.01, '100', '', 'abc', null, true, false, [100], { v: 1 }, {}, Number.NaN];
  return [
    { type },
    ...amounts.map((amount) => ({ type, amount })),
    { type, amount: 100, units: 5 },
    { type, amount: 100, symbol: 'AAPL' },
    { type, amount: 100, units: '1', symbol: 'X' },
    { type, units: 100 },
    { type, amount: 100, extra: 1 },
    { type, amount: 100, note: 'for the year' },
    { type: type.toUpperCase(), amount: 100 },
    { type: ` ${type}`, amount: 100 },
    { type: `${type}s`, amount: 100 },
    { type: [type], amount: 100 },
  ];
}

/** The same for a type declared in units and a symbol. */
function badUnitBodies(type: string): unknown[] {
  const units: unknown[] = [0, -1, '-1', '0', '0.000000000', '1.123456789', '1e3', 'lots', '', ' 1', '1,000', '1.', '.5', null, true, [1], {}, 1e-9];
  const symbols: unknown[] = ['aapl', '', 'TOOLONGSYMBOLNAME1', 42, '$BTC', 'A B', '1ABC', null, ['AAPL'], 'BTC\n'];
  return [
    { type },
    { type, units: 10 },
    { type, symbol: 'AAPL' },
    ...units.map((u) => ({ type, units: u, symbol: 'AAPL' })),
    ...symbols.map((symbol) => ({ type, units: 10, symbol })),
    { type, units: 10, symbol: 'AAPL', amount: 100 },
    { type, amount: 100 },
    { type, units: 10, symbol: 'AAPL', extra: true },
  ];
}

/** Form posts to /money that must be refused, for a type declared in dollars. */
function badCashForms(type: string): Array<Record<string, string>> {
  const amounts = [
    '',
    ' ',
    '0',
    '0.00',
    '0.99',
    '-1',
    '-0.01',
    '10.005',
    '1.001',
    'abc',
    '1e3',
    '1,00',
    '$',
    '..',
    '1.2.3',
    '99999999999',
    'NaN',
    'Infinity',
    '0x10',
    '+5',
    '١٠٠',
    '１０',
    '5e-1',
    '.',
    '10 000',
    '1'.repeat(31),
  ];
  return [
    ...amounts.map((amount) => ({ type, amount })),
    { type, amount: '100', units: '5' },
    { type, amount: '100', symbol: 'AAPL' },
    { type, amount: '100', units: '5', symbol: 'AAPL' },
    { type, units: '5', symbol: 'AAPL' },
    { type: `${type}x`, amount: '100' },
  ];
}

function badUnitForms(type: string): Array<Record<string, string>> {
  const units = ['', ' ', '0', '-1', '+1', '0.000000000', '1.123456789', '1e3', 'lots', '1,000', '.5', '1.', 'ten', '1/2', 'Infinity', '١٠', '1'.repeat(31)];
  const symbols = ['', '$BTC', 'A B', '1ABC', 'TOOLONGSYMBOLNAME1', 'BTC!', '-', '.X', 'É'];
  return [
    ...units.map((u) => ({ type, units: u, symbol: 'AAPL' })),
    ...symbols.map((symbol) => ({ type, units: '10', symbol })),
    { type, units: '10', symbol: 'AAPL', amount: '100' },
    { type, amount: '100' },
    { type, units: 'x', symbol: 'y z' },
    { type: '', units: '10', symbol: 'AAPL' },
    { type: 'gold_bars', units: '10', symbol: 'AAPL' },
    { type: 'credit_card_scheduled_deposit', amount: '100' },
  ];
}

for (const { name: engine } of engines()) {
  describe(`malformed declarations, every type, API and web (${engine})`, () => {
    let env: TestEnv;
    let donor: TestUser;
    let browser: WebClient;

    before(async () => {
      env = await openEnv(engine);
      donor = await makeUser(env.deps);
      browser = new WebClient(env.app);
      await browser.signUp('Form Donor', 'form-donor@example.org');
      await browser.get('/money');
    });
    after(async () => env.close());

    test('the API refuses 30+ malformed declarations of each type with 400 or 422 and a code; nothing is written', async () => {
      const before = await fingerprint(env.deps);
      for (const type of [...CASH, ...UNITS]) {
        const bodies = CASH.includes(type) ? badCashBodies(type) : badUnitBodies(type);
        assert.ok(bodies.length >= 30, `${type}: ${bodies.length} cases`);
        for (const body of bodies) {
          const res = await call(env.app, 'POST', '/v1/contributions', { key: donor.key, body });
          assert.ok(res.status === 422 || res.status === 400, `${JSON.stringify(body)}: ${res.status} ${JSON.stringify(res.body)}`);
          assert.match(String(res.body.code), /^(validation_failed|amount_invalid|type_not_accepted|unknown_field|invalid_body|invalid_json)$/, JSON.stringify(body));
        }
      }
      assert.deepEqual(await fingerprint(env.deps), before);
    });

    test('the web form refuses 30+ malformed declarations of each type with 422 and the problem beside its field; nothing is written', async () => {
      const before = await fingerprint(env.deps);
      for (const type of [...CASH, ...UNITS]) {
        const forms = CASH.includes(type) ? badCashForms(type) : badUnitForms(type);
        assert.ok(forms.length >= 30, `${type}: ${forms.length} cases`);
        for (const form of forms) {
          const page = await browser.post('/money', form);
          assert.equal(page.status, 422, `${JSON.stringify(form)}: ${page.status} ${page.location ?? ''}`);
          assert.match(page.body, /role="alert"/, JSON.stringify(form));
          assert.match(page.body, /aria-invalid="true"|must be one of/, JSON.stringify(form));
          assert.doesNotMatch(textOf(page.body), /How to send it/);
        }
      }
      assert.deepEqual(await fingerprint(env.deps), before);
    });

    test('a valid form of each type is declared and shows its instructions and reference', async () => {
      for (const type of [...CASH, ...UNITS]) {
        const page = await browser.post('/money', CASH.includes(type) ? { type, amount: '$1,250.50' } : { type, units: '2.5', symbol: 'brk.b' });
        assert.equal(page.status, 303, type);
        const shown = textOf((await browser.get(page.location ?? '')).body);
        assert.match(shown, /How to send it/);
        assert.match(shown, /reference ALM-[2-9A-HJ-NP-Z]{4}-[2-9A-HJ-NP-Z]{4}/);
        assert.match(shown, CASH.includes(type) ? /\$1,250\.50/ : /2\.5 BRK\.B/);
      }
    });
  });
}
