// Background jobs of a server process: the scheduler of recurring donations,
// the sandbox clock, telling people (webhooks and mail), stale checks, the ledger's log, a valuation
// a crash left running, and retention. All are safe to run on every node at once.
import type { Platform } from './platform.ts';
import { runScheduler } from './modules/scheduled/index.ts';
import { runSandboxClock } from './modules/sandbox/index.ts';
import { runRetention } from './modules/retention/index.ts';
import { expireRequests } from './modules/donations/index.ts';
import { notifyStatus, runNotify } from './modules/notify/index.ts';
import { repairReceipts } from './modules/contributions/index.ts';
import { voidStaleChecks } from './modules/payments/index.ts';
import { runLedgerLog } from './modules/ledger/index.ts';
import { finishRunningValuation } from './modules/portfolio/index.ts';
import type { JobName } from './metrics.ts';

export function startJobs(platform: Platform): () => void {
  const { deps } = platform;
  const every = (ms: number, name: JobName | 'notify backlog', job: () => Promise<unknown>) => {
    if (ms <= 0) return undefined;
    let running = false;
    const timer = setInterval(() => {
      if (running) return; // a slow run is not stacked on by the next tick
      running = true;
      const started = performance.now();
      const ran = (ok: boolean) => {
        if (name !== 'notify backlog') deps.metrics.jobRun(name, ok, (performance.now() - started) / 1000);
      };
      job()
        .then(
          () => ran(true),
          (error: unknown) => {
            ran(false);
            deps.log.error({ err: error, job: name }, `${name} failed`);
          },
        )
        .finally(() => {
          running = false;
        });
    }, ms);
    timer.unref();
    return timer;
  };
  const timers = [
    every(deps.config.schedulerIntervalMs, 'scheduler', () => runScheduler(deps)),
    // A contribution an older release's node made succeed during a rolling upgrade gets its receipt (ADR 13).
    every(deps.config.schedulerIntervalMs === 0 ? 0 : 60_000, 'receipts', async () => {
      const issued = await repairReceipts(deps);
      if (issued > 0) deps.log.info({ issued }, 'receipts issued for contributions an older release made succeed');
    }),
    // A family member's request lapses after 30 days undecided (rules §20).
    every(deps.config.schedulerIntervalMs === 0 ? 0 : 60_000, 'requests', async () => {
      const expired = await expireRequests(deps);
      if (expired > 0) deps.log.info({ expired }, 'requests lapsed');
    }),
    // A valuation a crash or a stopped node left running is carried on, a round at a time (rules §19).
    every(deps.config.schedulerIntervalMs === 0 ? 0 : Math.min(15_000, deps.config.schedulerIntervalMs), 'valuations', async () => {
      const finished = await finishRunningValuation(deps);
      if (finished !== undefined && finished.rounds > 0) deps.log.info({ valuation: finished.id, rounds: finished.rounds }, 'a valuation left running was carried on to its end');
    }),
    every(deps.config.sandbox ? deps.config.sandboxTickMs : 0, 'sandbox clock', () => runSandboxClock(deps)),
    // Slow webhook attempts go on between ticks, so that the next ticks send others' deliveries.
    every(deps.config.notifyIntervalMs, 'notify', () => runNotify(deps, 1, { waitForDeliveries: false })),
    every(deps.config.notifyIntervalMs === 0 ? 0 : 15_000, 'notify backlog', () => notifyStatus(deps)),
    // Checks not cashed within CHECK_STALE_DAYS are voided, their grants back to their donors (rules §17).
    every(deps.config.retentionIntervalMs, 'stale checks', async () => {
      for (const book of ['live', 'test'] as const) {
        const voided = await voidStaleChecks(deps, book, 'system:stale-checks');
        if (voided.length > 0) deps.log.info({ book, payments: voided }, "stale checks voided: their grants are back in the donors' funds");
      }
    }),
    // The journal's log takes new entries and signs a checkpoint when one is due (rules §26).
    every(deps.config.ledger.checkpointIntervalMs === 0 ? 0 : Math.min(5_000, deps.config.ledger.checkpointIntervalMs), 'ledger', () => runLedgerLog(deps)),
    every(deps.config.retentionIntervalMs, 'retention', async () => {
      const deleted = await runRetention(deps);
      if (Object.values(deleted).some((n) => n > 0)) deps.log.info({ deleted }, 'retention: old records deleted');
    }),
  ];
  return () => {
    for (const t of timers) clearInterval(t);
  };
}
