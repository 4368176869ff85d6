// The HTTP contract's shapes of apps (Login with Almoner, ADR 16) on the operator API.
import { Type } from '@sinclair/typebox';
import { Id } from '../../http/schemas.ts';

export const AppsQuery = Type.Object({ before: Type.Optional(Id), limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })) });

export const ClientIdParams = Type.Object({ client_id: Type.String({ pattern: '^app_[0-9A-Za-z]{24}$' }) });

export const ReasonBody = Type.Optional(Type.Object({ reason: Type.Optional(Type.String({ maxLength: 500 })) }, { additionalProperties: false }));
