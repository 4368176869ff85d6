// From events to deliveries: each event, with its payload already rendered,
// becomes one delivery per endpoint of its user that wants its type, written
// in the relay's transaction (so an event is relayed once, and its
// deliveries exist exactly when it is marked relayed).
import type { Deps } from '../../deps.ts';
import type { Trx } from '../../db/database.ts';
import { notFound } from '../../shared/errors.ts';
import * as store from './webhooks.store.ts';
import { messageIdOf, wantsType } from './webhooks.ts';

export interface Rendered {
  event_id: number;
  user_id: number;
  /** The app that made the object, whose endpoints hear of it too (rules §25). */
  app_id?: number | null;
  type: string;
  /** The Standard Webhooks body: {"type", "timestamp", "data"}. */
  payload: string;
}

export async function fanOut(trx: Trx, events: readonly Rendered[], at: string): Promise<number> {
  const appIds = [...new Set(events.flatMap((e) => (e.app_id === undefined || e.app_id === null ? [] : [e.app_id])))];
  // A user's endpoints hear their fund's events; an app's, the events of what the app made (rules §25).
  const endpoints = [
    ...(await store.endpointsOfUsers(trx, [...new Set(events.map((e) => e.user_id))])).map((e) => ({ ...e, app_id: null })),
    ...(await store.endpointsOfApps(trx, appIds)),
  ];
  if (endpoints.length === 0) return 0;
  const wanting = endpoints.map((endpoint) => ({ endpoint, wants: wantsType(endpoint.event_types) }));
  const deliveries = [];
  for (const e of events) {
    for (const { endpoint, wants } of wanting) {
      const hears = endpoint.app_id === null ? endpoint.user_id === e.user_id : endpoint.app_id === e.app_id;
      if (!hears || !wants(e.type)) continue;
      deliveries.push({
        endpoint_id: endpoint.id,
        event_id: e.event_id,
        message_id: messageIdOf(e.event_id),
        type: e.type,
        payload: e.payload,
        status: 'pending',
        next_at: at,
        created_at: at,
      });
    }
  }
  await store.insertDeliveries(trx, deliveries);
  return deliveries.length;
}

/**
 * Operators: sends an endpoint's events since `since` again, as new deliveries with the same
 * `webhook-id` as the first time (receivers that keep ids drop what they already had). The
 * payload is the event's own record, as GET /v1/events shows it. Returns how many were queued.
 */
export async function replayEndpoint(deps: Deps, endpointId: number, since: string): Promise<number> {
  const endpoint = await store.endpointById(deps.db, endpointId);
  if (endpoint === undefined || endpoint.deleted_at !== null) throw notFound('webhook_endpoint_not_found', `no webhook endpoint ${endpointId}`);
  const events = endpoint.app_id === null ? await store.eventsSince(deps.db, endpoint.user_id, since) : await store.appEventsSince(deps.db, endpoint.app_id, since);
  const wants = wantsType(endpoint.event_types);
  const at = deps.clock.now().toISOString();
  const deliveries = events
    .filter((e) => wants(e.type))
    .map((e) => ({
      endpoint_id: endpoint.id,
      event_id: null,
      message_id: messageIdOf(e.id),
      type: e.type,
      payload: JSON.stringify({ type: e.type, timestamp: e.created_at, data: { id: e.object_id, object: e.object_type, ...(JSON.parse(e.data) as object) } }),
      status: 'pending',
      next_at: at,
      created_at: at,
    }));
  await deps.db.transaction().execute((trx) => store.insertDeliveries(trx, deliveries));
  return deliveries.length;
}
