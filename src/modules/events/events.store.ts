// The transactional outbox (DECISIONS 12): an event row is written in the
// same database transaction as the state change it reports.
import type { Trx } from '../ledger/index.ts';

export type EventType =
  | 'donation.created' | 'donation.updated'
  | 'gift.created' | 'gift.updated'
  | 'contribution.created' | 'contribution.updated';

export async function recordEvent(
  trx: Trx,
  event: { user_id: number; type: EventType; object_type: string; object_id: number; data: unknown; at: string },
): Promise<void> {
  await trx.insertInto('events').values({
    user_id: event.user_id,
    type: event.type,
    object_type: event.object_type,
    object_id: event.object_id,
    data: JSON.stringify(event.data),
    created_at: event.at,
  }).execute();
}
