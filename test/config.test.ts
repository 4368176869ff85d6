// Configuration from the environment: defaults, and a clear refusal of a bad value.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../src/config.ts';

test('DB_CONNECTION_LIFETIME_S: 600 s unless set, 0 keeps connections for ever, and a bad value is refused by name', () => {
  assert.equal(loadConfig({}).dbConnectionLifetimeS, 600);
  assert.equal(loadConfig({ DB_CONNECTION_LIFETIME_S: '0' }).dbConnectionLifetimeS, 0);
  assert.equal(loadConfig({ DB_CONNECTION_LIFETIME_S: '30' }).dbConnectionLifetimeS, 30);
  for (const bad of ['-1', 'ten', '1.5', '86401']) {
    assert.throws(() => loadConfig({ DB_CONNECTION_LIFETIME_S: bad }), /DB_CONNECTION_LIFETIME_S must be an integer from 0 to 86400/, bad);
  }
});
