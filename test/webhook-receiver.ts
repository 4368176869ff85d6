// A real webhook receiver for tests: an HTTP server on 127.0.0.1 that
// records every delivery and verifies its signature with the Standard
// Webhooks reference package. The path chooses the answer: /ok 200, /fail 500,
// /hang no answer, /redirect 302 to /ok, /slow 200 after 15 ms (counting
// how many of one webhook-id are in flight at once).
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

export class Receiver {
  readonly received: Received[] = [];
  /** webhook-ids being answered right now, and the most of one id at once (two workers sending one attempt together). */
  readonly inFlight = new Map<string, number>();
  mostAtOnce = 0;
  #server: Server | undefined;
  port = 0;

  async start(): Promise<this> {
    this.#server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => {
        body += c.toString();
      });
      req.on('end', () => {
        const path = req.url ?? '/';
        this.received.push({ path, headers: req.headers, body, at: Date.now() });
        if (path.startsWith('/hang')) return; // never answers
        if (path.startsWith('/slow')) {
          const id = String(req.headers['webhook-id']);
          const now = (this.inFlight.get(id) ?? 0) + 1;
          this.inFlight.set(id, now);
          this.mostAtOnce = Math.max(this.mostAtOnce, now);
          setTimeout(() => {
            this.inFlight.set(id, (this.inFlight.get(id) ?? 1) - 1);
            res.writeHead(200).end('ok');
          }, 15);
          return;
        }
        if (path.startsWith('/fail')) return void res.writeHead(500).end('no');
        if (path.startsWith('/redirect')) return void res.writeHead(302, { location: `http://127.0.0.1:${this.port}/ok` }).end();
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      });
    });
    this.#server.keepAliveTimeout = 100;
    await new Promise<void>((resolve) => this.#server?.listen(0, '127.0.0.1', resolve));
    this.port = (this.#server.address() as AddressInfo).port;
    return this;
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  on(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }

  async stop(): Promise<void> {
    this.#server?.closeAllConnections();
    await new Promise<void>((resolve) => this.#server?.close(() => resolve()));
  }
}

/** The delivery's payload if `secret` verifies it (throws otherwise): what any receiver's library does. */
export function verify(secret: string, r: Received): { type: string; timestamp: string; data: Record<string, unknown> } {
  const headers = {
    'webhook-id': String(r.headers['webhook-id']),
    'webhook-timestamp': String(r.headers['webhook-timestamp']),
    'webhook-signature': String(r.headers['webhook-signature']),
  };
  return new Webhook(secret).verify(r.body, headers) as { type: string; timestamp: string; data: Record<string, unknown> };
}
