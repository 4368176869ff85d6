// Retention (docs/operating.md): records kept only as long as they serve are
// deleted by age, on every node's hourly job or `almoner retention run`.
// Safe on many nodes at once: each deletes only what is past its age.
import type { Deps } from '../../deps.ts';
import * as store from './retention.store.ts';
import { pruneLoginRecords } from '../apps/index.ts';

const EVENTS_PER_BATCH = 10_000;

export interface RetentionResult {
  idempotency_keys: number;
  web_sessions: number;
  sign_in_failures: number;
  events: number;
  /** Login with Almoner: expired codes, tokens, sessions and interactions, and long-retired signing keys. */
  login_records: number;
}

export async function runRetention(deps: Deps): Promise<RetentionResult> {
  const now = deps.clock.now().getTime();
  const ago = (ms: number) => new Date(now - ms).toISOString();
  const { retention } = deps.config;
  const result: RetentionResult = {
    idempotency_keys: await store.deleteIdempotencyKeys(deps.db, ago(retention.idempotencyHours * 3_600_000)),
    web_sessions: await store.deleteExpiredSessions(deps.db, ago(retention.expiredSessionDays * 86_400_000)),
    sign_in_failures: await store.deleteSignInFailures(deps.db, ago(retention.signInFailureHours * 3_600_000)),
    events: 0,
    login_records: await pruneLoginRecords(deps),
  };
  if (retention.eventDays > 0) {
    const before = ago(retention.eventDays * 86_400_000);
    for (;;) {
      const deleted = await store.deleteEvents(deps.db, before, EVENTS_PER_BATCH);
      result.events += deleted;
      if (deleted < EVENTS_PER_BATCH) break;
    }
  }
  return result;
}
