// Configuration from the environment: defaults, and a clear refusal of a bad value.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.ts';

test('DB_CONNECTION_LIFETIME_S: 600 s unless set, 0 keeps connections for ever, and a bad value is refused by name', () => {
  assert.equal(loadConfig({}).dbConnectionLifetimeS, 600);
  assert.equal(loadConfig({ DB_CONNECTION_LIFETIME_S: '0' }).dbConnectionLifetimeS, 0);
  assert.equal(loadConfig({ DB_CONNECTION_LIFETIME_S: '30' }).dbConnectionLifetimeS, 30);
  for (const bad of ['-1', 'ten', '1.5', '86401']) {
    assert.throws(() => loadConfig({ DB_CONNECTION_LIFETIME_S: bad }), /DB_CONNECTION_LIFETIME_S must be an integer from 0 to 86400/, bad);
  }
});

test('DB_LOOKUP_CONNECTIONS: 2 unless set, 0 sends lookups through the pool, and a bad value is refused by name', () => {
  assert.equal(loadConfig({}).dbLookupConnections, 2);
  assert.equal(loadConfig({ DB_LOOKUP_CONNECTIONS: '0' }).dbLookupConnections, 0);
  assert.equal(loadConfig({ DB_LOOKUP_CONNECTIONS: '4' }).dbLookupConnections, 4);
  for (const bad of ['-1', 'two', '1.5', '101']) {
    assert.throws(() => loadConfig({ DB_LOOKUP_CONNECTIONS: bad }), /DB_LOOKUP_CONNECTIONS must be an integer from 0 to 100/, bad);
  }
});

test('VALUATION_ROUND_FUNDS: 2,000 funds a round unless set, and a bad value is refused by name', () => {
  assert.equal(loadConfig({}).valuationRoundFunds, 2_000);
  assert.equal(loadConfig({ VALUATION_ROUND_FUNDS: '1' }).valuationRoundFunds, 1);
  assert.equal(loadConfig({ VALUATION_ROUND_FUNDS: '100000' }).valuationRoundFunds, 100_000);
  for (const bad of ['0', '-5', 'many', '2.5', '100001']) {
    assert.throws(() => loadConfig({ VALUATION_ROUND_FUNDS: bad }), /VALUATION_ROUND_FUNDS must be an integer from 1 to 100000/, bad);
  }
});

test('DATABASE_URL: only sqlite: and postgres(ql):// are accepted; anything else is refused by name, its password hidden', () => {
  assert.equal(loadConfig({}).databaseUrl, 'sqlite:./data/almoner.sqlite');
  for (const good of ['sqlite:./x.sqlite', 'sqlite::memory:', 'postgres://u@127.0.0.1:5432/db', 'postgresql://u:p@h/db'])
    assert.equal(loadConfig({ DATABASE_URL: good }).databaseUrl, good);
  for (const bad of ['postgress://postgres:s3cret@127.0.0.1:5432/test', 'mysql://x', './data/almoner.sqlite', 'sqlite3:x', 'http://db']) {
    assert.throws(
      () => loadConfig({ DATABASE_URL: bad }),
      (error: Error) => /^DATABASE_URL must start with sqlite: .* or postgres:\/\//.test(error.message) && !error.message.includes('s3cret'),
      bad,
    );
  }
});

test('TRUST_PROXY: off unless set; a hop count; proxy addresses and ranges; anything else refused by name', () => {
  assert.equal(loadConfig({}).trustProxy, false);
  assert.equal(loadConfig({ TRUST_PROXY: 'false' }).trustProxy, false);
  assert.equal(loadConfig({ TRUST_PROXY: '2' }).trustProxy, 2);
  assert.deepEqual(loadConfig({ TRUST_PROXY: '127.0.0.1, 10.0.0.0/8,loopback,::1' }).trustProxy, ['127.0.0.1', '10.0.0.0/8', 'loopback', '::1']);
  assert.deepEqual(loadConfig({ TRUST_PROXY: '10.0.0.0/8,' }).trustProxy, ['10.0.0.0/8'], 'a trailing comma is forgiven');
  for (const bad of ['0', '11', 'true', 'proxy.example', '300.1.1.1', 'yes please']) {
    assert.throws(() => loadConfig({ TRUST_PROXY: bad }), /TRUST_PROXY/, bad);
  }
});

test('DATABASE_URL_FILE and REDIS_URL_FILE read a secret from a file; both forms at once, or an unreadable or empty file, are refused by name', () => {
  const dir = mkdtempSync(join(tmpdir(), 'almoner-secret-'));
  try {
    const db = join(dir, 'db');
    writeFileSync(db, 'postgres://almoner:s3cret@db.internal:5432/almoner\n');
    const redis = join(dir, 'redis');
    writeFileSync(redis, 'redis://:r3dis@cache:6379');
    const config = loadConfig({ DATABASE_URL_FILE: db, REDIS_URL_FILE: redis });
    assert.equal(config.databaseUrl, 'postgres://almoner:s3cret@db.internal:5432/almoner');
    assert.equal(config.redisUrl, 'redis://:r3dis@cache:6379');
    assert.throws(() => loadConfig({ DATABASE_URL_FILE: db, DATABASE_URL: 'sqlite:x' }), /set DATABASE_URL or DATABASE_URL_FILE, not both/);
    assert.throws(() => loadConfig({ REDIS_URL_FILE: join(dir, 'missing') }), /REDIS_URL_FILE names ".*missing", which cannot be read: ENOENT/);
    writeFileSync(join(dir, 'empty'), '\n');
    assert.throws(() => loadConfig({ DATABASE_URL_FILE: join(dir, 'empty') }), /DATABASE_URL_FILE names .* which is empty/);
    writeFileSync(join(dir, 'typo'), 'postgress://x:pw@h/db');
    assert.throws(
      () => loadConfig({ DATABASE_URL_FILE: join(dir, 'typo') }),
      (e: Error) => /DATABASE_URL must start with/.test(e.message) && !e.message.includes(':pw@'),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('ADMIN_PORT, OPERATOR_API, METRICS, API_DOCS: defaults, values, and a bad value refused by name', () => {
  const d = loadConfig({});
  assert.deepEqual([d.adminPort, d.adminHost, d.operatorApi, d.metricsEnabled, d.apiDocs], [undefined, '127.0.0.1', true, true, true]);
  const c = loadConfig({ ADMIN_PORT: '9100', ADMIN_HOST: '10.0.0.5', OPERATOR_API: 'off', METRICS: 'false', API_DOCS: '0' });
  assert.deepEqual([c.adminPort, c.adminHost, c.operatorApi, c.metricsEnabled, c.apiDocs], [9100, '10.0.0.5', false, false, false]);
  assert.throws(() => loadConfig({ ADMIN_PORT: '70000' }), /ADMIN_PORT must be an integer from 1 to 65535/);
  assert.throws(() => loadConfig({ METRICS: 'maybe' }), /METRICS must be true or false, got "maybe"/);
});

test('LOG_LEVEL, REDIS_URL, COOKIE_SECURE: what a node cannot use is refused at start by name, a password hidden', () => {
  const d = loadConfig({});
  assert.deepEqual([d.logLevel, d.redisUrl, d.cookieSecure], ['info', undefined, true]);
  const c = loadConfig({ LOG_LEVEL: 'Warn', REDIS_URL: 'rediss://:pw@cache.internal:6380/0', COOKIE_SECURE: 'false' });
  assert.deepEqual([c.logLevel, c.redisUrl, c.cookieSecure], ['warn', 'rediss://:pw@cache.internal:6380/0', false]);
  assert.throws(() => loadConfig({ LOG_LEVEL: 'verbose' }), /^Error: LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "verbose"/);
  assert.throws(() => loadConfig({ COOKIE_SECURE: 'maybe' }), /COOKIE_SECURE must be true or false, got "maybe"/);
  assert.throws(() => loadConfig({ REDIS_URL: 'http://x' }), /REDIS_URL must be redis:\/\/host:port/);
  assert.throws(
    () => loadConfig({ REDIS_URL: 'redis//user:secret@host' }),
    (e: Error) => /REDIS_URL must be/.test(e.message) && !e.message.includes('secret'),
  );
  assert.throws(
    () => loadConfig({ REDIS_URL: 'http://user:secret@host' }),
    (e: Error) => /REDIS_URL must be/.test(e.message) && !e.message.includes('secret'),
  );
});

test('ALMONER_ENV=production: no default database, DATABASE_URL or its file must name one; any other value is refused by name', () => {
  assert.throws(() => loadConfig({ ALMONER_ENV: 'production' }), /DATABASE_URL \(or DATABASE_URL_FILE\) must be set when ALMONER_ENV=production/);
  assert.throws(() => loadConfig({ ALMONER_ENV: 'production', DATABASE_URL: '  ' }), /must be set when ALMONER_ENV=production/);
  assert.equal(loadConfig({ ALMONER_ENV: 'production', DATABASE_URL: 'postgres://db.internal/almoner' }).databaseUrl, 'postgres://db.internal/almoner');
  assert.equal(loadConfig({}).databaseUrl, 'sqlite:./data/almoner.sqlite', 'development keeps its default');
  assert.throws(() => loadConfig({ ALMONER_ENV: 'prod' }), /ALMONER_ENV must be one of development, production, got "prod"/);
});

test('SPONSOR_*: the ones left at their placeholders are named (a server warns, or refuses in production)', () => {
  const d = loadConfig({});
  assert.deepEqual(d.sponsorUnset, ['SPONSOR_NAME', 'SPONSOR_EIN', 'SPONSOR_ADDRESS', 'SPONSOR_BANK', 'SPONSOR_BROKERAGE', 'SPONSOR_CRYPTO']);
  assert.equal(d.production, false);
  const c = loadConfig({ SPONSOR_NAME: 'Green Valley Giving Fund', SPONSOR_EIN: '12-3456789', SPONSOR_BANK: '  ', ALMONER_ENV: 'production', DATABASE_URL: 'postgres://db/a' });
  assert.deepEqual(c.sponsorUnset, ['SPONSOR_ADDRESS', 'SPONSOR_BANK', 'SPONSOR_BROKERAGE', 'SPONSOR_CRYPTO']);
  assert.equal(c.production, true);
  assert.equal(c.sponsor.name, 'Green Valley Giving Fund');
});
