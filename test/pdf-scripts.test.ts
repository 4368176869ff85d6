// Receipts and tax statements print a donor's name in any script (the second
// security review: PDFs answered 500 for Cyrillic, CJK, Greek, Arabic and bidi
// controls). On both engines, each name's receipt and statement PDF is 200 and
// reads back, with Debian's pdftotext, holding the name; right-to-left names
// read back in their own order; a character no font has prints as '?'.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { call, engines, fund, makeUser, openEnv, type TestEnv } from './harness.ts';
import { pdfText } from './pdf.ts';

/** The names, and what their PDF's text must hold (pdftotext marks right-to-left runs with U+202B...U+202C; those are dropped). */
const NAMES: ReadonlyArray<[script: string, name: string, reads: string]> = [
  ['Cyrillic', 'Фёдор Достоевский', 'Фёдор Достоевский'],
  ['Chinese', '王小明', '王小明'],
  ['Japanese', '山田 はなこ', '山田 はなこ'],
  ['Korean', '김민수', '김민수'],
  ['Greek', 'Αλέξανδρος Παπαδόπουλος', 'Αλέξανδρος Παπαδόπουλος'],
  ['Arabic', 'محمد عبد الله', 'محمد عبد الله'],
  ['Hebrew', 'שרה לוי', 'שרה לוי'],
  ['bidi controls', 'Eve \u202Etsil\u202C \u2067Ann\u2069', 'Eve list Ann'],
  ['Vietnamese', 'Nguyễn Thị Minh Khai', 'Nguyễn Thị Minh Khai'],
  ['no font', 'Ada 𝔄𝔡𝔞', 'Ada ???'],
];

const readable = (text: string) => text.replace(/[\u202A-\u202E\u2066-\u2069\u200E\u200F]/g, '').replace(/\s+/g, ' ');

for (const { name: engine } of engines()) {
  describe(`PDFs in every script (${engine})`, () => {
    let env: TestEnv;
    before(async () => {
      env = await openEnv(engine);
    });
    after(async () => env.close());

    for (const [script, name, reads] of NAMES) {
      test(`${script}: the receipt and the tax statement print "${reads}"`, async () => {
        const donor = await makeUser(env.deps, { name });
        await fund(env.deps, donor, 25_000);
        const contributions = await call(env.app, 'GET', '/v1/contributions', { key: donor.key });
        const id = contributions.body.items[0].id as number;
        const receipt = await env.app.inject({ method: 'GET', url: `/v1/contributions/${id}/receipt`, headers: { 'x-api-key': donor.key, accept: 'application/pdf' } });
        assert.equal(receipt.statusCode, 200, receipt.body.slice(0, 300));
        assert.equal(receipt.headers['content-type'], 'application/pdf');
        const text = readable(pdfText(receipt.rawPayload));
        assert.ok(text.includes(`Donor: ${reads}`), text);
        const year = new Date().getUTCFullYear();
        const statement = await env.app.inject({ method: 'GET', url: `/v1/tax_statements/${year}`, headers: { 'x-api-key': donor.key, accept: 'application/pdf' } });
        assert.equal(statement.statusCode, 200, statement.body.slice(0, 300));
        assert.ok(readable(pdfText(statement.rawPayload)).includes(reads), 'the statement names the donor too');
      });
    }
  });
}
