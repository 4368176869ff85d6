// `almoner nonprofits download` (docs/rules.md §16) against a local server
// standing in for the official addresses: the IRS files and the three lists
// fetched, the IRS's zips unpacked, each written whole; an address that fails,
// or a zip that is not one, stops it naming the address.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { zipSync, strToU8 } from 'fflate';
import { downloadAll, OFFICIAL_DOWNLOADS, readListFile } from '../src/modules/diligence/index.ts';

const FIXTURES = new URL('./fixtures/diligence/', import.meta.url).pathname;
const BMF =
  'EIN,NAME,ICO,STREET,CITY,STATE,ZIP,GROUP,SUBSECTION,AFFILIATION,CLASSIFICATION,RULING,DEDUCTIBILITY,FOUNDATION,ACTIVITY,ORGANIZATION,STATUS,TAX_PERIOD,ASSET_CD,INCOME_CD,FILING_REQ_CD,PF_FILING_REQ_CD,ACCT_PD,ASSET_AMT,INCOME_AMT,REVENUE_AMT,NTEE_CD,SORT_NAME\r\n';

let server: Server;
let base = '';
const served = new Map<string, Uint8Array | string>([
  ['/pub/irs-soi/eo1.csv', BMF],
  ['/pub/irs-soi/eo2.csv', BMF],
  ['/pub/irs-soi/eo3.csv', BMF],
  ['/pub/irs-soi/eo4.csv', BMF],
  ['/pub/epostcard/data-download-revocation.zip', zipSync({ 'data-download-revocation.txt': strToU8(readFileSync(join(FIXTURES, 'revocations.txt'), 'utf8')) })],
  ['/pub/epostcard/data-download-pub78.zip', zipSync({ 'data-download-pub78.txt': strToU8(readFileSync(join(FIXTURES, 'pub78.txt'), 'utf8')) })],
  ['/api/PublicationPreview/exports/SDN.CSV', readFileSync(join(FIXTURES, 'sdn.csv'), 'utf8')],
]);

before(async () => {
  server = createServer((request, response) => {
    const body = served.get(request.url ?? '');
    if (body === undefined) response.writeHead(404).end('not here');
    else response.writeHead(200).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  assert.ok(address !== null && typeof address === 'object');
  base = `http://127.0.0.1:${address.port}`;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

const toLocal = (url: string) => `${base}${new URL(url).pathname}`;

test('every official file is fetched into its folder, the zips unpacked, the lists readable as published', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'download-'));
  const written = await downloadAll(dir, { rewrite: toLocal });
  assert.deepEqual(
    written.map((w) => w.file.slice(dir.length + 1)),
    ['bmf/eo1.csv', 'bmf/eo2.csv', 'bmf/eo3.csv', 'bmf/eo4.csv', 'lists/revocations.txt', 'lists/pub78.txt', 'lists/sdn.csv'],
  );
  assert.equal(readListFile('revocations', join(dir, 'lists/revocations.txt')).entries.length, 3);
  assert.equal(readListFile('pub78', join(dir, 'lists/pub78.txt')).entries.length, 4);
  assert.equal(readListFile('sdn', join(dir, 'lists/sdn.csv')).entries.length, 5);
  assert.ok(
    OFFICIAL_DOWNLOADS.every((d) => d.url.startsWith('https://')),
    'the official addresses are https',
  );
});

test('an address that fails, or a zip that is not one, stops the download naming it; nothing half-written is left', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'download-'));
  const missing = [{ file: 'lists/x.txt', url: 'https://apps.irs.gov/pub/epostcard/gone.zip', unzip: '.txt', what: 'a list' }];
  await assert.rejects(
    downloadAll(dir, { downloads: missing, rewrite: toLocal }),
    /could not download the a list from http:\/\/127\.0\.0\.1:\d+\/pub\/epostcard\/gone\.zip: HTTP 404/,
  );
  const notZip = [{ file: 'lists/y.txt', url: 'https://www.irs.gov/pub/irs-soi/eo1.csv', unzip: '.txt', what: 'a list' }];
  await assert.rejects(downloadAll(dir, { downloads: notZip, rewrite: toLocal }), /is not a zip file/);
  assert.equal(existsSync(join(dir, 'lists/y.txt')), false);
  assert.deepEqual(
    readdirSync(dir, { recursive: true }).filter((f) => String(f).endsWith('.partial')),
    [],
  );
  await assert.rejects(
    downloadAll(dir, { downloads: missing, rewrite: () => 'http://127.0.0.1:1/nothing' }),
    /could not download the a list from http:\/\/127\.0\.0\.1:1\/nothing/,
  );
});
