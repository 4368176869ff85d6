// The HTTP contract's shapes of a fund's portfolio on the operator API.
import { Type } from '@sinclair/typebox';
import { StringEnum } from '../../http/schemas.ts';

export const PortfolioMoveBody = Type.Object({ move: StringEnum(['invest', 'liquidate'] as const), amount: Type.Number() }, { additionalProperties: false });
