// Every problem `code` the service answers with (docs/rules.md §3): its title, what it means, what
// to do about it, and the operations that may answer with it. `AppError` takes only these codes,
// so the compiler keeps this list and the source together; `/errors/<code>` shows each entry, and
// the OpenAPI document lists each operation's codes (`problemCodesOf`).

import type { ProblemDoc } from './problem-docs.ts';
import { REQUEST_PROBLEMS } from './problems.request.ts';
import { MONEY_PROBLEMS } from './problems.money.ts';
import { PEOPLE_PROBLEMS } from './problems.people.ts';

export type { ProblemDoc };

export const PROBLEMS = { ...REQUEST_PROBLEMS, ...MONEY_PROBLEMS, ...PEOPLE_PROBLEMS } as const;

/** A problem code: a key of the catalogue above. */
export type ProblemCode = keyof typeof PROBLEMS;

export const PROBLEM_CODES = Object.keys(PROBLEMS) as ProblemCode[];

export function isProblemCode(code: string): code is ProblemCode {
  return Object.hasOwn(PROBLEMS, code);
}

function matches(pattern: string, method: string, path: string): boolean {
  const [m = '', p = ''] = pattern.split(' ');
  if (m !== '*' && m !== method) return false;
  return p.endsWith('*') ? path.startsWith(p.slice(0, -1)) : path === p;
}

/** The codes an operation may answer with (`path` as in the OpenAPI document, `{param}`s and all). */
export function problemCodesOf(method: string, path: string): ProblemCode[] {
  const upper = method.toUpperCase();
  const admin = path.startsWith('/admin/');
  const signed = admin || path.startsWith('/v1/') || path.startsWith('/public/api/v1/');
  const body = upper === 'POST' || upper === 'PUT' || upper === 'PATCH';
  const own = path.replace(/^\/public\/api\/v1\//, '/v1/');
  return PROBLEM_CODES.filter((code) => {
    const entry: ProblemDoc = PROBLEMS[code];
    switch (entry.every) {
      case 'all':
        return true;
      case 'signed':
        return signed && (!admin || code === 'unauthenticated' || code === 'invalid_token' || code === 'forbidden');
      case 'body':
        return body;
      case 'post':
        return upper === 'POST' && !admin;
      default:
        return (entry.on ?? []).some((pattern) => matches(pattern, upper, own));
    }
  });
}
