// One webhook POST (rules §12): signed per Standard Webhooks with its
// reference package, to the address the host name resolves to at this
// moment, refused if that address is private (unless allowed); redirects are
// not followed, only a 2xx within the timeout counts.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { isPrivateAddress } from './webhooks.ts';

export interface SendResult {
  ok: boolean;
  status: number | null;
  durationMs: number;
  error: string | null;
}

/** The webhook-signature header: one signature per secret (the current one, and during a rotation the previous one). */
export function signatures(secrets: readonly string[], messageId: string, at: Date, payload: string): string {
  return secrets.map((s) => new Webhook(s).sign(messageId, at, payload)).join(' ');
}

class RefusedAddress extends Error {}

/**
 * Connections are kept alive between deliveries to one host (a backlog to one endpoint is one
 * connection, not thousands). A kept connection was made to an address the guard allowed; a new
 * one is checked again.
 */
const agents = { http: new HttpAgent({ keepAlive: true, maxSockets: 64, timeout: 60_000 }), https: new HttpsAgent({ keepAlive: true, maxSockets: 64, timeout: 60_000 }) };

/** dns.lookup, refusing a private address: the check is on what the socket will connect to. */
function guardedLookup(allowPrivate: boolean): LookupFunction {
  return ((hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error !== null) return callback(error);
      const refused = allowPrivate ? undefined : addresses.find((a) => isPrivateAddress(a.address));
      if (refused !== undefined) return callback(new RefusedAddress(`${hostname} resolves to a private, loopback or reserved address`));
      if (options.all === true) return callback(null, addresses);
      const first = addresses[0];
      return first === undefined ? callback(new Error(`${hostname} has no address`)) : callback(null, first.address, first.family);
    });
  }) as unknown as LookupFunction;
}

type SendOptions = { timeoutMs: number; allowPrivate: boolean };

export async function sendWebhook(url: string, headers: Record<string, string>, payload: string, options: SendOptions): Promise<SendResult> {
  const first = await sendOnce(url, headers, payload, options);
  if (first.staleSocket !== true) return first;
  // A kept-alive connection the receiver closed just as it was reused: the request most likely
  // never reached it. Once more; a receiver that did get it drops the resend by its webhook-id.
  const { staleSocket: _stale, ...again } = await sendOnce(url, headers, payload, options);
  return again;
}

function sendOnce(url: string, headers: Record<string, string>, payload: string, options: SendOptions): Promise<SendResult & { staleSocket?: boolean }> {
  const started = performance.now();
  const done = (ok: boolean, status: number | null, error: string | null): SendResult => ({ ok, status, durationMs: Math.round(performance.now() - started), error });
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return Promise.resolve(done(false, null, 'the endpoint URL does not parse'));
  }
  const literal = target.hostname.replace(/^\[|\]$/g, '');
  if (!options.allowPrivate && isIP(literal) !== 0 && isPrivateAddress(literal)) return Promise.resolve(done(false, null, `refused: ${literal} is a private address`));
  const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: SendResult & { staleSocket?: boolean }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const req = request(
      target,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'Almoner-Webhooks/1', 'content-length': Buffer.byteLength(payload), ...headers },
        lookup: guardedLookup(options.allowPrivate),
        agent: target.protocol === 'https:' ? agents.https : agents.http,
      },
      (res: IncomingMessage) => {
        const status = res.statusCode ?? 0;
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > 64 * 1024) res.destroy(); // the answer's body is not needed; a huge one is not read
        });
        const end = () => {
          const ok = status >= 200 && status < 300;
          finish(done(ok, status, ok ? null : status >= 300 && status < 400 ? `redirect (${status}) not followed` : `answered ${status}`));
        };
        res.on('end', end);
        res.on('close', end);
        res.on('error', end);
      },
    );
    const timer = setTimeout(() => {
      req.destroy();
      finish(done(false, null, `no answer within ${options.timeoutMs} ms`));
    }, options.timeoutMs);
    req.on('error', (error: NodeJS.ErrnoException) => {
      const stale = req.reusedSocket && error.code === 'ECONNRESET';
      finish({
        ...done(false, null, error instanceof RefusedAddress ? `refused: ${error.message}` : error.message || 'connection failed'),
        ...(stale ? { staleSocket: true } : {}),
      });
    });
    req.end(payload);
  });
}
