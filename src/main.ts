// config -> platform -> app -> listen; on SIGTERM/SIGINT stop accepting,
// finish in-flight requests, close the database, exit.
import { loadConfig } from './config.ts';
import { openPlatform } from './platform.ts';
import { buildApp } from './app.ts';
import { startJobs } from './jobs.ts';

export async function serve(): Promise<void> {
  const config = loadConfig();
  const platform = await openPlatform(config);
  const draining = { value: false };
  const app = await buildApp(platform.deps, { draining: () => draining.value });
  const stopJobs = startJobs(platform);
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    platform.deps.log.info({ signal, grace_ms: config.shutdownGraceMs }, 'shutting down');
    // Report not ready first, so a load balancer stops sending; keep serving
    // through the grace period; then stop accepting and finish what is in flight.
    draining.value = true;
    stopJobs();
    await new Promise((resolve) => setTimeout(resolve, config.shutdownGraceMs));
    await app.close();
    await platform.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  await app.listen({ host: config.host, port: config.port });
}

if (import.meta.main) await serve();
