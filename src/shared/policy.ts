// Who may do what to a fund (docs/rules.md §20, ADR 23): the one table. Every
// use case that acts on a fund asks `authorize(caller, action)` before it reads
// or writes anything, whatever door called it (API, web form, CLI, app token);
// the API's hook asks the same table early, from the route's action, so that a
// refusal costs no work, but no use case trusts its door to have asked.
import { AppError } from './errors.ts';
import type { Caller, MemberRole } from './caller.ts';

/** What an app's token must hold for an action (ADR 16); `keys`: no app token may, only a person's key or session. */
export type PolicyScope = 'read' | 'donate' | 'gifts' | 'dafpay' | 'keys';

export interface Rule {
  /** The least role of a shared fund: family < advisor < organizer. */
  role: MemberRole;
  scope: PolicyScope;
}

/**
 * Each action on a fund, with the least role and the app scope it needs. Where a lower role may
 * act only on its own things (a family member's donation is a request; they withdraw only their
 * own requests; anyone leaves, only an organizer removes another), the use case decides that too.
 */
export const POLICY = {
  /** See the fund: balances, lists, statements. */
  read: { role: 'family', scope: 'read' },
  /** See what only the account's own keys should: its keys, its webhook endpoints and their attempts. */
  read_secrets: { role: 'family', scope: 'keys' },
  /** Give to a charity (a family member's gift is a request: rules §20). */
  donate: { role: 'family', scope: 'donate' },
  /** Withdraw a donation (a family member: only their own request). */
  cancel_donation: { role: 'family', scope: 'donate' },
  /** Approve or decline a family member's request: never one's own (four eyes). */
  decide_request: { role: 'advisor', scope: 'keys' },
  /** Send a gift from the fund's money. */
  give_gift: { role: 'advisor', scope: 'gifts' },
  /** Accept, claim or deny a gift one was sent: the recipient's, whatever their role. */
  answer_gift: { role: 'family', scope: 'gifts' },
  /** Declare or withdraw money coming in. */
  add_money: { role: 'advisor', scope: 'keys' },
  /** Set up or stop a recurring donation. */
  schedule: { role: 'advisor', scope: 'keys' },
  /** Choose the fund's portfolio and share, or cancel an exchange. */
  invest: { role: 'advisor', scope: 'keys' },
  /** Add, change, test or remove a webhook endpoint (it hears every event of the fund). */
  webhooks: { role: 'advisor', scope: 'keys' },
  /** The sandbox's deposits and advance (the test book only). */
  sandbox: { role: 'advisor', scope: 'keys' },
  /** One's own profile and choice of fund, one's own keys: each member's. */
  own_account: { role: 'family', scope: 'keys' },
  /** Leave the fund (an organizer also removes others). */
  leave: { role: 'family', scope: 'keys' },
  /** Invite members and change their roles. */
  members: { role: 'organizer', scope: 'keys' },
  /** Set the successor plan. */
  successors: { role: 'organizer', scope: 'keys' },
  /** Open, change or end a fundraiser of the fund's holder (rules §22). */
  fundraise: { role: 'advisor', scope: 'donate' },
  /** Pledge to match a fundraiser's donations from the fund (its cap held at once), or end the pledge. */
  match: { role: 'advisor', scope: 'donate' },
  /** At a charity's checkout (rules §24): who is giving, the funds they may grant from, a grant's status. */
  checkout: { role: 'family', scope: 'dafpay' },
  /** Make a grant at a checkout from a fund (asked of the fund the grant names, not the one acted on). */
  grant: { role: 'advisor', scope: 'dafpay' },
} as const satisfies Record<string, Rule>;

export type Action = keyof typeof POLICY;

/** Each role may do what the ones below it may. */
const RANK: Readonly<Record<MemberRole, number>> = { family: 0, advisor: 1, organizer: 2 };

export function roleAllows(held: MemberRole, needed: MemberRole): boolean {
  return RANK[held] >= RANK[needed];
}

/**
 * Throws unless `caller` may take `action` on the fund it acts on: forbidden (a suspended user,
 * or a fund's holder suspended), forbidden (insufficient_scope: an app's token without the
 * action's scope, or on an action for people only), forbidden (role_forbidden: below the role).
 */
export function authorize(caller: Caller, action: Action): void {
  const refusal = refusalOf(caller, action);
  if (refusal !== undefined) throw refusal;
}

/** Why `caller` may not take `action`, or undefined: what authorize throws. */
export function refusalOf(caller: Caller, action: Action): AppError | undefined {
  const rule: Rule = POLICY[action];
  if (caller.user_status !== 'active') return new AppError('forbidden', 'forbidden', 'this account is suspended');
  const app = caller.app;
  if (app !== undefined && (rule.scope === 'keys' || !app.scopes.includes(rule.scope))) {
    return new AppError(
      'forbidden',
      'insufficient_scope',
      rule.scope === 'keys'
        ? "this is for API keys only: an app's token cannot do it"
        : `the app's token does not have the ${rule.scope} scope; ask the donor to connect the app with it`,
      { headers: { 'www-authenticate': `Bearer error="insufficient_scope"${rule.scope === 'keys' ? '' : `, scope="${rule.scope}"`}` } },
    );
  }
  if (!roleAllows(caller.role, rule.role)) {
    return new AppError(
      'forbidden',
      'role_forbidden',
      `this needs ${rule.role === 'advisor' ? 'an advisor or organizer' : 'an organizer'} of the fund; you are ${caller.role === 'advisor' ? 'an' : 'a'} ${caller.role}`,
    );
  }
  return undefined;
}

/**
 * The action of each route of the public API that is not a plain read (`METHOD /path` under /v1,
 * as the router names it). A GET or HEAD not named here is `read`. Every other route must be
 * named: the authorization matrix (test/auth.test.ts) reads the router and fails on one that is not.
 */
export const API_ROUTE_ACTIONS: Readonly<Record<string, Action>> = {
  'POST /donations': 'donate',
  'POST /users/:user_id/donations': 'donate',
  'DELETE /donations/:donation_id': 'cancel_donation',
  'PATCH /donations/:donation_id': 'donate',
  'POST /donations/:donation_id/approve': 'decide_request',
  'POST /donations/:donation_id/decline': 'decide_request',
  'POST /gifts': 'give_gift',
  'PATCH /gifts/:code': 'give_gift',
  'POST /gifts/:code/accept': 'answer_gift',
  'POST /gifts/:code/claim': 'answer_gift',
  'POST /gifts/:code/deny': 'answer_gift',
  'POST /contributions': 'add_money',
  'DELETE /contributions/:id': 'add_money',
  'PATCH /contributions/:id': 'add_money',
  'POST /scheduled_donations': 'schedule',
  'DELETE /scheduled_donations/:id': 'schedule',
  'PATCH /scheduled_donations/:id': 'schedule',
  'PUT /users/me/allocation': 'invest',
  'DELETE /users/me/allocation/exchange': 'invest',
  'POST /users/me/allocation/investments': 'invest',
  'PATCH /users/me': 'own_account',
  'POST /api_keys': 'own_account',
  'DELETE /api_keys/:id': 'own_account',
  'GET /api_keys': 'read_secrets',
  'GET /webhook_endpoints': 'read_secrets',
  'GET /webhook_endpoints/:id': 'read_secrets',
  'GET /webhook_endpoints/:id/attempts': 'read_secrets',
  'POST /webhook_endpoints': 'webhooks',
  'PATCH /webhook_endpoints/:id': 'webhooks',
  'DELETE /webhook_endpoints/:id': 'webhooks',
  'POST /webhook_endpoints/:id/rotate_secret': 'webhooks',
  'POST /webhook_endpoints/:id/test': 'webhooks',
  'POST /fundraisers': 'fundraise',
  'PATCH /fundraisers/:id': 'fundraise',
  'POST /fundraisers/:id/end': 'fundraise',
  'POST /fundraisers/:id/matches': 'match',
  'POST /matches/:id/end': 'match',
  // The grant's own fund is asked `grant` by the use case; the door checks the token's scope.
  'GET /dafpay/donor': 'checkout',
  'GET /dafpay/funds': 'checkout',
  'GET /dafpay/grants/:id': 'checkout',
  'POST /dafpay/grants': 'checkout',
  'POST /sandbox/deposits': 'sandbox',
  'POST /sandbox/advance': 'sandbox',
  'POST /fund/members': 'members',
  'PATCH /fund/members/:id': 'members',
  'DELETE /fund/members/:id': 'leave',
  'PUT /fund/successor_plan': 'successors',
};

/**
 * The action of an API route: named above, else a read for GET (HEAD is its GET's), else
 * undefined (a route the table does not know: the hook refuses it as an organizer's key-only action).
 */
export function routeAction(method: string, path: string): Action | undefined {
  const asked = method === 'HEAD' ? 'GET' : method;
  return API_ROUTE_ACTIONS[`${asked} ${path}`] ?? (asked === 'GET' ? 'read' : undefined);
}
