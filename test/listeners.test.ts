// Exposure: the operator API and /metrics on a listener of their own (ADMIN_PORT),
// or not at all (OPERATOR_API, METRICS), and /docs off (API_DOCS).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type AddressInfo } from 'node:net';
import { buildApp } from '../src/app.ts';
import { createAdminToken } from '../src/modules/admin/index.ts';
import { describeEachEngine, freshDatabase, makeUser, openEnv, startServerProcess } from './harness.ts';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describeEachEngine('listeners', (env) => {
  test('a public listener serves the API, the web and /docs, never /admin/v1 or /metrics; an operator listener the reverse', async () => {
    const { deps } = env();
    const user = await makeUser(deps);
    const operator = (await createAdminToken(deps, 'listeners', 'test')).token;
    const publicApp = await buildApp(deps, { serves: { public: true, operator: false } });
    const operatorApp = await buildApp(deps, { serves: { public: false, operator: true } });
    try {
      const status = async (app: typeof publicApp, url: string, headers: Record<string, string> = {}) => (await app.inject({ method: 'GET', url, headers })).statusCode;
      assert.equal(await status(publicApp, '/v1/users/me', { 'x-api-key': user.key }), 200);
      assert.equal(await status(publicApp, '/docs'), 200);
      assert.equal(await status(publicApp, '/admin/v1/users', { authorization: `Bearer ${operator}` }), 404);
      assert.equal(await status(publicApp, '/metrics'), 404);
      assert.equal(await status(operatorApp, '/admin/v1/users', { authorization: `Bearer ${operator}` }), 200);
      assert.equal(await status(operatorApp, '/metrics'), 200);
      assert.equal(await status(operatorApp, '/v1/users/me', { 'x-api-key': user.key }), 404);
      for (const app of [publicApp, operatorApp]) assert.equal(await status(app, '/readyz'), 200);
    } finally {
      await publicApp.close();
      await operatorApp.close();
    }
  });
});

test('one listener for all: /metrics is not served there unless METRICS_ON_PUBLIC_PORT, and then only with an operator token', async () => {
  const plain = await openEnv('sqlite', { metricsOnPublicPort: false });
  try {
    const operator = (await createAdminToken(plain.deps, 'listeners', 'test')).token;
    assert.equal((await plain.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${operator}` } })).statusCode, 404);
    assert.equal((await plain.app.inject({ method: 'GET', url: '/admin/v1/users', headers: { authorization: `Bearer ${operator}` } })).statusCode, 200, 'the operator API stays');
  } finally {
    await plain.close();
  }
  const { databaseUrl, cleanup } = await freshDatabase('sqlite');
  const { server, base, exited } = await startServerProcess(databaseUrl);
  try {
    assert.equal((await fetch(`${base}/metrics`)).status, 404, 'the default: no /metrics on the public port');
  } finally {
    server.kill('SIGTERM');
    await exited;
    await cleanup();
  }
});

test('OPERATOR_API=false, METRICS=false and API_DOCS=false turn those off', async () => {
  const env = await openEnv('sqlite', { operatorApi: false, metricsEnabled: false, apiDocs: false });
  try {
    for (const url of ['/admin/v1/users', '/metrics', '/docs', '/docs/operators']) assert.equal((await env.app.inject({ method: 'GET', url })).statusCode, 404, url);
    assert.equal((await env.app.inject({ method: 'GET', url: '/openapi.json' })).statusCode, 200);
  } finally {
    await env.close();
  }
});

test('almoner serve with ADMIN_PORT: the operator listener is apart, on 127.0.0.1', async () => {
  const { databaseUrl, cleanup } = await freshDatabase('sqlite');
  const adminPort = await freePort();
  const { server, base, exited } = await startServerProcess(databaseUrl, { ADMIN_PORT: String(adminPort) });
  try {
    assert.equal((await fetch(`${base}/metrics`)).status, 404);
    assert.equal((await fetch(`${base}/admin/v1/users`)).status, 404);
    assert.equal((await fetch(`http://127.0.0.1:${adminPort}/metrics`)).status, 200);
    assert.equal((await fetch(`http://127.0.0.1:${adminPort}/admin/v1/users`)).status, 401, 'the operator API, asking for a token');
    assert.equal((await fetch(`http://127.0.0.1:${adminPort}/v1/users/me`)).status, 404);
  } finally {
    server.kill('SIGTERM');
    await exited;
    await cleanup();
  }
});
