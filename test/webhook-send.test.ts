// One webhook POST over kept-alive connections: when the receiver closes a
// kept connection just as it is reused (the request gets ECONNRESET on a
// reused socket), the POST is sent once more on a new connection.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { sendWebhook } from '../src/modules/webhooks/send.ts';

test('a kept connection reset as it is reused: the POST is sent again on a new connection, which answers', async () => {
  const requestsOn = new Map<Socket, number>();
  let received = 0;
  const server = createServer((req: IncomingMessage, res) => {
    const socket = req.socket;
    const n = (requestsOn.get(socket) ?? 0) + 1;
    requestsOn.set(socket, n);
    received++;
    // The second request on a kept connection: the receiver drops the connection instead of answering.
    if (n === 2) return void socket.destroy();
    req.resume();
    req.on('end', () => res.writeHead(200).end('ok'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  const options = { timeoutMs: 2000, allowPrivate: true };
  try {
    const first = await sendWebhook(url, { 'webhook-id': 'msg_1' }, '{}', options);
    assert.deepEqual([first.ok, first.status], [true, 200]);
    const second = await sendWebhook(url, { 'webhook-id': 'msg_2' }, '{}', options);
    assert.deepEqual([second.ok, second.status, second.error], [true, 200, null], 'resent on a new connection');
    assert.equal(received, 3, 'the reset one, then its resend');
    assert.equal(requestsOn.size, 2, 'two connections');
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});
