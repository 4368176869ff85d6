// config -> platform -> app -> listen; on SIGTERM/SIGINT stop accepting,
// finish in-flight requests, close the database, exit.
import cluster from 'node:cluster';
import type { FastifyInstance } from 'fastify';
import { loadConfig, type Config } from './config.ts';
import { openPlatform } from './platform.ts';
import { buildApp } from './app.ts';
import { startJobs } from './jobs.ts';
import { rememberPublicUrl } from './modules/mail/index.ts';
import { keepRequestObjectsYoung } from './heap.ts';

/**
 * With `workers` > 1 this process forks that many server processes sharing
 * one port (node:cluster) and restarts any that dies; on SIGTERM it passes
 * the signal on and exits when they all have.
 */
/** How long after the grace period a stopping node may take to finish before it exits anyway. */
const SHUTDOWN_DEADLINE_MS = 15_000;

export async function serve(workers = 1): Promise<void> {
  if (workers > 1 && cluster.isPrimary) return supervise(workers);
  keepRequestObjectsYoung();
  const config = loadConfig();
  // Donors read the sponsor's details in their instructions for sending money and on receipts.
  const unset = config.sponsorUnset.join(', ');
  if (config.production && unset !== '') {
    throw new Error(`${unset} must be set when ALMONER_ENV=production: donors' instructions for sending money and their receipts would show placeholders`);
  }
  const platform = await openPlatform(config);
  if (unset !== '') platform.deps.log.warn({ unset: config.sponsorUnset }, `placeholder sponsor details reach donors' instructions and receipts: set ${unset}`);
  const draining = { value: false };
  // With ADMIN_PORT the operator API and /metrics have a listener of their own (never the public one).
  const apart = config.adminPort !== undefined;
  const app = await buildApp(platform.deps, { draining: () => draining.value, serves: { public: true, operator: !apart } });
  const admin = apart ? await buildApp(platform.deps, { draining: () => draining.value, serves: { public: false, operator: true } }) : undefined;
  const stopJobs = startJobs(platform);
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    platform.deps.log.info({ signal, grace_ms: config.shutdownGraceMs }, 'shutting down');
    // A hard deadline: what has not finished by then (a database gone silent) is abandoned, and
    // the node exits non-zero rather than hang (its work is at least once or replayed by key).
    setTimeout(() => {
      platform.deps.log.error({ signal }, 'shutdown did not finish in time; exiting');
      process.exit(1);
    }, config.shutdownGraceMs + SHUTDOWN_DEADLINE_MS).unref();
    // Report not ready first, so a load balancer stops sending; keep serving
    // through the grace period; then stop accepting and finish what is in flight.
    draining.value = true;
    stopJobs();
    await new Promise((resolve) => setTimeout(resolve, config.shutdownGraceMs));
    await Promise.all([app.close(), admin?.close()]);
    await platform.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  try {
    await app.listen({ host: config.host, port: config.port });
    if (admin !== undefined && config.adminPort !== undefined) await admin.listen({ host: config.adminHost, port: config.adminPort });
    await rememberPublicUrl(platform.deps, reachedAt(config, app));
  } catch (error) {
    // A port it cannot bind (taken: EADDRINUSE; not allowed: EACCES) stops the node at once: a node
    // that runs its jobs without listening would look alive to its supervisor and serve nobody.
    platform.deps.log.error({ err: error }, 'cannot listen');
    stopJobs();
    await Promise.allSettled([app.close(), admin?.close()]);
    await platform.close();
    throw new Error(`cannot listen: ${(error as Error).message}`, { cause: error });
  }
}

/** The address the server is reached at: PUBLIC_URL, or where it listens (the port it was given, when it asked for any). */
function reachedAt(config: Config, app: FastifyInstance): string {
  if (process.env.PUBLIC_URL !== undefined && process.env.PUBLIC_URL !== '') return config.publicUrl;
  const address = app.server.address();
  if (config.port !== 0 || address === null || typeof address === 'string') return config.publicUrl;
  return config.publicUrl.replace(/:0$/, `:${address.port}`);
}

if (import.meta.main) {
  await serve().catch((error: unknown) => {
    // A configuration or start-up error stops the process with its message, never a half-started node.
    process.stderr.write(`almoner: ${(error as Error).message}\n`);
    process.exit(1);
  });
}

async function supervise(workers: number): Promise<void> {
  const config = loadConfig();
  // Migrate once here, before the workers open the database.
  const platform = await openPlatform(config);
  const log = platform.deps.log;
  await platform.close();
  let stopping = false;
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
      return;
    }
    log.error({ pid: worker.process.pid, code, signal }, 'worker died; starting another');
    cluster.fork();
  });
  const stop = () => {
    stopping = true;
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  for (let i = 0; i < workers; i++) cluster.fork();
  log.info({ workers }, 'started workers');
}
