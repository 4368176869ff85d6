// The HTTP contract's shapes of webhooks: what its routes take and answer (and the OpenAPI document shows).
import { Type } from '@sinclair/typebox';
import { IsoDate, Nullable, NullableIsoDate } from '../../http/schemas.ts';
import { WEBHOOK_EVENT_TYPES } from './webhooks.ts';

export const Endpoint = Type.Object({
  id: Type.Integer(),
  app: Nullable(Type.String({ description: "The client id of the app whose donations it hears (rules §25); null: the fund's own events" })),
  url: Type.String(),
  description: Type.String(),
  event_types: Type.Array(Type.String(), { description: `Which events to send (empty: every type): ${WEBHOOK_EVENT_TYPES.join(', ')}` }),
  disabled: Type.Boolean(),
  disabled_reason: Nullable(Type.String()),
  failing_since: NullableIsoDate,
  created_at: IsoDate,
  updated_at: IsoDate,
});

export const WithSecret = Type.Composite([Endpoint, Type.Object({ secret: Type.String({ description: 'whsec_...: shown this once; verify deliveries with it' }) })]);

export const EndpointFields = {
  app: Type.Optional(Type.Unknown({ description: "On creation: the client id of one of your apps; the endpoint hears of the donations that app's tokens and donate links make" })),
  url: Type.Unknown({ description: 'https URL to deliver to (public addresses only)' }),
  description: Type.Optional(Type.Unknown({ description: 'At most 500 characters' })),
  event_types: Type.Optional(Type.Unknown({ description: 'A list of event types; empty or absent: every type' })),
  disabled: Type.Optional(Type.Unknown({ description: 'true stops deliveries' })),
};

export const Attempt = Type.Object({
  id: Type.Integer(),
  at: IsoDate,
  message_id: Type.String(),
  event_type: Type.String(),
  status_code: Nullable(Type.Integer()),
  duration_ms: Type.Integer(),
  succeeded: Type.Boolean(),
  error: Nullable(Type.String()),
  delivery: Type.Object({ attempts: Type.Integer(), status: Type.String() }),
});
