// Behind a proxy (TRUST_PROXY): the client's address comes from X-Forwarded-For
// only when the connection is from a trusted proxy, so each visitor has a
// bucket of their own; otherwise the header is anyone's to forge and is ignored.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openEnv, TestClock, type TestEnv } from './harness.ts';
import type { Config } from '../src/config.ts';

const MID_MINUTE = '2026-11-22T12:00:30.000Z';

async function withNode(overrides: Partial<Config>, body: (env: TestEnv) => Promise<void>): Promise<void> {
  const env = await openEnv('sqlite', { rateLimitAnonymousPerMinute: 3, ...overrides }, { clock: new TestClock(MID_MINUTE) });
  try {
    await body(env);
  } finally {
    await env.close();
  }
}

/** Anonymous requests (no key: 401, counted per address), each from another forwarded address. */
async function statuses(env: TestEnv, n: number, remoteAddress = '127.0.0.1'): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const res = await env.app.inject({ method: 'GET', url: '/v1/users/me', remoteAddress, headers: { 'x-forwarded-for': `203.0.113.${i + 1}` } });
    out.push(res.statusCode);
  }
  return out;
}

describe('client addresses behind a proxy', () => {
  test("TRUST_PROXY unset: X-Forwarded-For is ignored; the connection's address is the bucket", async () => {
    await withNode({}, async (env) => assert.deepEqual(await statuses(env, 5), [401, 401, 401, 429, 429]));
  });

  test('TRUST_PROXY=127.0.0.1: each forwarded address has its own bucket', async () => {
    await withNode({ trustProxy: ['127.0.0.1'] }, async (env) => {
      assert.deepEqual(await statuses(env, 10), Array(10).fill(401));
      // A connection from elsewhere is no trusted proxy: its header is ignored.
      assert.deepEqual(await statuses(env, 5, '198.51.100.7'), [401, 401, 401, 429, 429]);
    });
  });

  test('TRUST_PROXY=1 (one hop): the address the nearest proxy saw is the client', async () => {
    await withNode({ trustProxy: 1 }, async (env) => {
      assert.deepEqual(await statuses(env, 10), Array(10).fill(401));
      // Two addresses forwarded: only the one the trusted hop added counts; a forged earlier one is not believed.
      const forged: number[] = [];
      for (let i = 0; i < 5; i++) {
        const res = await env.app.inject({ method: 'GET', url: '/v1/users/me', headers: { 'x-forwarded-for': `10.9.9.${i}, 203.0.113.200` } });
        forged.push(res.statusCode);
      }
      assert.deepEqual(forged, [401, 401, 401, 429, 429]);
    });
  });
});
