// The platform's logs (pino, JSON lines): every line passes one redaction
// before it is written, so no log line holds a credential or a bearer URL
// whatever logged it (Fastify's request lines, an error's message, a library).
// Redacted: API keys, operator tokens, client and webhook secrets, Bearer
// values, and the path segments that are themselves the credential: reset and
// invitation links (an operator's and a fund's), gift codes, sign-in
// interactions (also URL-encoded, as in a `next=` parameter).
import { hostname } from 'node:os';
import { VERSION } from './version.ts';
import pino, { type DestinationStream, type Logger, type LoggerOptions } from 'pino';

const SECRETS: ReadonlyArray<[RegExp, string]> = [
  [/\balm_(live|test|admin)_[A-Za-z0-9]+/g, 'alm_$1_[redacted]'],
  [/\bappsec_[A-Za-z0-9]+/g, 'appsec_[redacted]'],
  [/\bwhsec_[A-Za-z0-9+/=]+/g, 'whsec_[redacted]'],
  [/\b(Bearer|bearer)(\s+|%20)[A-Za-z0-9._~+/=-]+/g, '$1$2[redacted]'],
  // A path segment that is the credential: /reset/T, /invite/T, /join/T, /charities/claims/confirm/T, /gifts/CODE,
  // /oauth/interaction/UID, /oidc/auth/UID. The authorization matrix holds every route whose path carries a
  // token, code or secret to this list (test/auth.test.ts).
  [/((?:\/|%2F)(?:reset|invite|join|confirm|gifts|interaction|auth)(?:\/|%2F))[A-Za-z0-9_-]{8,}/gi, '$1[redacted]'],
];

/** `line` with every credential and bearer URL segment replaced by `[redacted]`. */
export function redactLine(line: string): string {
  let out = line;
  for (const [pattern, replacement] of SECRETS) out = out.replace(pattern, replacement);
  return out;
}

/** A stream that redacts each line before `to` (by default standard output) writes it. */
export function redactingStream(to: DestinationStream = pino.destination({ dest: 1, sync: false })): DestinationStream {
  return { write: (line: string) => to.write(redactLine(line)) };
}

/** The platform's logger: pino with `options`, its lines redacted on their way to `to`. */
export function makeLogger(options: LoggerOptions, to?: DestinationStream): Logger {
  // Every line names the release that wrote it: during a rolling upgrade two run side by side.
  return pino({ base: { pid: process.pid, hostname: hostname(), version: VERSION }, ...options }, redactingStream(to));
}
