// An open-loop load client: requests leave at a fixed rate, evenly spaced,
// whether or not earlier ones have been answered, and each latency counts
// from when its request was due (no coordinated omission). autocannon's
// `-R` is a per-second budget that each connection spends as fast as it can
// at the start of every second: its "fixed rate" is bursts at full load.
// Raw keep-alive sockets and a minimal response reader keep the client's own
// delay small (measured against the ceiling server in the same run).
//   node bench/open-loop.ts URL RATE DURATION_S CONNECTIONS [header=value ...]
// Prints JSON: requests, rps, p50, p99, max (ms), non2xx, errors. With OPEN_LOOP_TRACE=<file> it
// also appends there a line `run <epoch ms>`, then one per request: when it was due (ms from the
// run's start) and its latency (ms), to tell a stall from a run slow throughout.
import { appendFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';

const [url, rateText, durationText, connectionsText, ...headerArgs] = process.argv.slice(2);
const rate = Number(rateText);
const durationMs = Number(durationText) * 1000;
const target = new URL(url as string);
const headerLines = headerArgs.map((h) => `${h.slice(0, h.indexOf('='))}: ${h.slice(h.indexOf('=') + 1)}\r\n`).join('');
const request = Buffer.from(`GET ${target.pathname}${target.search} HTTP/1.1\r\nHost: ${target.host}\r\n${headerLines}\r\n`);

const latencies: number[] = [];
let non2xx = 0;
let errors = 0;

interface Connection {
  socket: Socket;
  /** When the request in flight was due; undefined when idle. */
  dueAt: number | undefined;
  /** Bytes of the current response still to come after its headers; -1 while reading headers. */
  remaining: number;
  head: string;
}

const idle: Connection[] = [];
const queue: number[] = []; // due times of requests waiting for a connection

function dispatch(conn: Connection): void {
  const dueAt = queue.shift();
  if (dueAt === undefined) {
    idle.push(conn);
    return;
  }
  conn.dueAt = dueAt;
  conn.remaining = -1;
  conn.head = '';
  conn.socket.write(request);
}

const traceFile = process.env.OPEN_LOOP_TRACE || undefined;
const trace: string[] = [];
/** When the first request was due. */
let start = 0;

function finish(conn: Connection): void {
  const latency = performance.now() - (conn.dueAt as number);
  latencies.push(latency);
  if (traceFile !== undefined) trace.push(`${((conn.dueAt as number) - start).toFixed(1)} ${latency.toFixed(2)}`);
  conn.dueAt = undefined;
  dispatch(conn);
}

function onData(conn: Connection, chunk: Buffer): void {
  let data = chunk;
  while (data.length > 0 && conn.dueAt !== undefined) {
    if (conn.remaining === -1) {
      conn.head += data.toString('latin1');
      const end = conn.head.indexOf('\r\n\r\n');
      if (end === -1) return;
      const status = Number(conn.head.slice(9, 12));
      if (status < 200 || status >= 300) non2xx += 1;
      const length = /\r\ncontent-length:\s*(\d+)/i.exec(conn.head.slice(0, end));
      if (length === null) throw new Error('open-loop: responses must carry Content-Length');
      const bodyHere = Buffer.byteLength(conn.head, 'latin1') - (end + 4);
      conn.remaining = Number(length[1]) - bodyHere;
      data = Buffer.alloc(0);
      if (conn.remaining <= 0) finish(conn); // (no pipelining: nothing follows a response)
    } else {
      conn.remaining -= data.length;
      data = Buffer.alloc(0);
      if (conn.remaining <= 0) finish(conn);
    }
  }
}

async function open(): Promise<Connection> {
  const socket = connect(Number(target.port), target.hostname);
  socket.setNoDelay(true);
  const conn: Connection = { socket, dueAt: undefined, remaining: -1, head: '' };
  socket.on('data', (chunk: Buffer) => onData(conn, chunk));
  socket.on('error', () => {
    errors += 1;
  });
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  return conn;
}

const connections = await Promise.all(Array.from({ length: Number(connectionsText) }, open));
idle.push(...connections);

let sent = 0;
const total = Math.floor((durationMs * rate) / 1000);
start = performance.now();
await new Promise<void>((resolve) => {
  const tick = () => {
    const due = Math.min(total, Math.floor(((performance.now() - start) * rate) / 1000));
    while (sent < due) {
      queue.push(start + (sent * 1000) / rate);
      sent += 1;
      const conn = idle.pop();
      if (conn !== undefined) dispatch(conn);
    }
    if (sent >= total) resolve();
    else setTimeout(tick, 1);
  };
  tick();
});
// Wait for the last answers (at most 10 s).
const deadline = performance.now() + 10_000;
while (latencies.length < total && performance.now() < deadline) await new Promise((r) => setTimeout(r, 5));
for (const c of connections) c.socket.destroy();

if (traceFile !== undefined) appendFileSync(traceFile, `run ${Date.now()}\n${trace.join('\n')}\n`);
latencies.sort((a, b) => a - b);
const pct = (p: number) => Number((latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] ?? 0).toFixed(2));
process.stdout.write(
  JSON.stringify({
    requests: latencies.length,
    rps: Math.round(latencies.length / (durationMs / 1000)),
    p50: pct(0.5),
    p99: pct(0.99),
    max: pct(1),
    non2xx,
    errors: errors + (total - latencies.length),
  }),
);
