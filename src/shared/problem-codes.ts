// Every problem `code` the service answers with (docs/rules.md §3): its title, what it means, what
// to do about it, and the operations that may answer with it. `AppError` takes only these codes,
// so the compiler keeps this list and the source together; `/errors/<code>` shows each entry, and
// the OpenAPI document lists each operation's codes (`problemCodesOf`).

export interface ProblemDoc {
  /** The problem's `title`. */
  title: string;
  /** What happened, in a sentence or two. */
  means: string;
  /** What the caller can do about it. */
  todo: string;
  /**
   * The operations that may answer with it, beyond those every operation of its kind may
   * (`ALL`, `SIGNED`, `BODY`, `POST`): `METHOD /path` as in the OpenAPI document, `*` for any
   * method, a trailing `*` for any path below; none for the web app's own pages.
   */
  on?: readonly string[];
  /** Every operation of a kind may answer with it: all, those that need a key, those with a body, POSTs. */
  every?: 'all' | 'signed' | 'body' | 'post';
}

const doc = (title: string, means: string, todo: string, on?: readonly string[] | ProblemDoc['every']): ProblemDoc =>
  on === undefined ? { title, means, todo } : typeof on === 'string' ? { title, means, todo, every: on } : { title, means, todo, on };

export const PROBLEMS = {
  // Any request.
  bad_request: doc('Bad request', 'The request could not be read as HTTP (a malformed line or header).', 'Fix the client sending it; nothing was done.'),
  not_found: doc('Not found', 'No route answers at this path.', 'Check the path against the API reference (`/docs`); routes also answer under `/public/api/v1`.'),
  method_not_allowed: doc('Method not allowed', 'The path exists but not with this method; the `Allow` header lists the ones it takes.', 'Use one of the methods in `Allow`.'),
  request_timeout: doc('Request timeout', 'The request did not arrive whole in time.', 'Send it again; check the connection.'),
  uri_too_long: doc('URI too long', 'The request line is longer than the service reads.', 'Shorten the query: send fewer or shorter parameters.'),
  headers_too_large: doc('Request headers too large', "The request's headers are larger than the service reads.", 'Send fewer or smaller headers (cookies, mostly).'),
  rate_limited: doc(
    'Too many requests',
    'The caller sent more requests this minute than it may (per key, or per address without one).',
    'Wait the seconds in `Retry-After`, then go on; spread requests out.',
    'all',
  ),
  internal_error: doc(
    'Internal error',
    'The service failed to answer; nothing you sent was wrong. The `request_id` finds it in the logs.',
    'Try again; if it persists, give the operator the `request_id`.',
    'all',
  ),
  unavailable: doc(
    'Service unavailable',
    'The service (or its database) cannot answer for a moment: starting, shutting down, or a dependency is down.',
    'Try again after `Retry-After`, or shortly; a retried POST with the same Idempotency-Key does its work once.',
    'all',
  ),

  // Reading the request.
  invalid_json: doc(
    'Invalid JSON',
    'The body is not one well-formed JSON value (duplicate keys and numbers out of range included).',
    'Send valid JSON with `Content-Type: application/json`.',
    'body',
  ),
  unsupported_media_type: doc('Unsupported media type', 'The body is not JSON (or not the type this route takes).', 'Send `Content-Type: application/json`.', 'body'),
  payload_too_large: doc('Payload too large', 'The body is larger than the service takes (64 KiB for JSON).', 'Send a smaller body.', 'body'),
  validation_failed: doc(
    'Validation failed',
    'One or more fields are missing or wrong; `errors` names each with its own code and message.',
    'Fix the fields named in `errors` and send it again.',
    'all',
  ),
  unknown_field: doc(
    'Unknown field',
    'The body has a field this route does not take (fields are not silently ignored).',
    'Remove the field named in `errors`; check its spelling.',
    'body',
  ),
  invalid_parameter: doc(
    'Invalid parameter',
    'A query or path parameter is malformed or out of range (a page number, an id, a date).',
    'Fix the parameter the message names.',
    'all',
  ),
  amount_invalid: doc('Amount invalid', 'An amount is not a number of dollars with at most two decimals, or is not positive.', 'Send dollars as a JSON number, like 25 or 25.5.', [
    'POST /v1/donations',
    'POST /v1/gifts',
    'POST /v1/contributions',
    'POST /v1/scheduled_donations',
    'POST /v1/sandbox/deposits',
    'PUT /v1/users/me/allocation',
    'POST /v1/users/{user_id}/donations',
    'POST /admin/v1/contributions',
  ]),
  amount_below_minimum: doc(
    'Amount below minimum',
    'The amount is below the least this kind of movement takes ($10 for a donation, $18 for a gift).',
    'Send at least the minimum the message gives.',
    ['POST /v1/donations', 'POST /v1/gifts', 'POST /v1/scheduled_donations', 'POST /v1/users/{user_id}/donations'],
  ),

  // Who is calling.
  unauthenticated: doc(
    'Authentication required',
    'The route needs an API key (`X-Api-Key`) or an app token, and none was sent.',
    'Send your API key in `X-Api-Key`, or an app token as `Authorization: Bearer`.',
    'signed',
  ),
  invalid_api_key: doc('Invalid API key', 'The key sent is unknown, revoked or malformed.', 'Use a current key (Settings, API keys); a revoked key stays revoked.', 'signed'),
  invalid_token: doc(
    'Invalid token',
    'The bearer token (an app token or an operator token) is unknown, expired or revoked.',
    'Get a new token: refresh it, or ask for a new operator token.',
    'signed',
  ),
  account_suspended: doc(
    'Account suspended',
    "The fund's holder is suspended by an operator: the key or token is known but may do nothing.",
    'Contact the platform operator.',
    'signed',
  ),
  forbidden: doc(
    'Forbidden',
    'The caller is known but may not do this (an operator route without an operator token, another user’s record).',
    'Use a credential that may; the message says which.',
    'signed',
  ),
  insufficient_scope: doc(
    'Insufficient scope',
    "An app's token lacks the scope this route needs, or the route is for API keys only.",
    'Ask the donor to connect the app with the scope the `WWW-Authenticate` header names.',
    'signed',
  ),
  role_forbidden: doc(
    'Role forbidden',
    "The caller's role in a shared fund does not allow this (a family member cannot give directly; only an organizer manages members).",
    'Ask an organizer or advisor of the fund, or to be given that role.',
    'signed',
  ),
  sandbox_disabled: doc(
    'Sandbox disabled',
    'This platform has no sandbox (test keys are turned off by its operator).',
    'Use a live key, or ask the operator to allow the sandbox.',
    ['POST /v1/api_keys', 'POST /v1/sandbox/*'],
  ),
  app_limit_exceeded: doc(
    'App limit exceeded',
    'The donation would take the app past the monthly limit the donor set for it.',
    'Give less, wait for next month, or ask the donor to raise the limit under Connected apps.',
    ['POST /v1/donations', 'POST /v1/gifts'],
  ),

  // Idempotency.
  idempotency_key_in_use: doc(
    'Idempotency key in use',
    'A request with this Idempotency-Key is still being worked on.',
    'Wait a moment and retry with the same key: you then get its answer.',
    'post',
  ),
  idempotency_key_reused: doc(
    'Idempotency key reused',
    'This Idempotency-Key was used before with a different request.',
    'Use a new key for a new request; the same key only to retry the same request.',
    'post',
  ),

  // Money and state.
  insufficient_funds: doc(
    'Insufficient funds',
    "The fund's available balance is less than this needs (held and pending money does not count).",
    'Give less, add money (a contribution), or wait for pending money to clear.',
    ['POST /v1/donations', 'POST /v1/gifts', 'PUT /v1/users/me/allocation', 'POST /v1/donations/{donation_id}/approve', 'POST /v1/users/{user_id}/donations'],
  ),
  invalid_transition: doc(
    'Invalid transition',
    'The record is not in a state this action applies to (a contribution already received, a payment already settled).',
    'Read the record for its current state; the action may already be done.',
    [
      'DELETE /v1/contributions/{id}',
      'DELETE /v1/scheduled_donations/{id}',
      'POST /v1/sandbox/advance',
      '* /admin/v1/contributions*',
      '* /admin/v1/donations*',
      '* /admin/v1/payments*',
      '* /admin/v1/users*',
    ],
  ),
  conflict: doc('Conflict', 'Another change to the same record happened at the same moment.', 'Read it again and retry if it still makes sense.', [
    'PUT /v1/users/me/allocation',
    'DELETE /v1/users/me/allocation/exchange',
    '* /admin/v1/apps*',
    'POST /v1/contributions',
  ]),
  donation_not_found: doc(
    'Donation not found',
    'No donation with this id is visible to the caller (another user’s private one is not found either).',
    'Check the id; list yours with `GET /v1/donations`.',
    ['* /v1/donations/{donation_id}*', 'GET /v1/users/{user_id}/donations/{donation_id}', '* /admin/v1/donations/{id}*'],
  ),
  donation_not_cancellable: doc(
    'Donation not cancellable',
    'The donation is past the point where it can be cancelled (approved for payment, paid, or already cancelled).',
    'Nothing to do: a paid donation stays paid; ask the operator if it went wrong.',
    ['DELETE /v1/donations/{donation_id}'],
  ),
  donation_in_payment: doc('Donation in payment', 'The donation is in a payment run on its way to the charity.', 'Wait for the run to settle; the operator can void a payment.', [
    'DELETE /v1/donations/{donation_id}',
    '* /admin/v1/donations/{id}*',
  ]),
  donation_in_run: doc('Donation in a run', 'The donation is already in another payment run.', 'Leave it in its run, or void that payment first.', ['POST /admin/v1/payment_runs']),
  donation_not_requested: doc(
    'Donation not requested',
    'Only a request (a family member’s donation waiting for a decision) can be approved or declined, and this one is not, or no longer, one.',
    'Read the donation: someone else may have decided it already.',
    ['POST /v1/donations/{donation_id}/approve', 'POST /v1/donations/{donation_id}/decline'],
  ),
  request_expired: doc('Request expired', 'The request waited 30 days without a decision and lapsed.', 'Ask again with a new donation.', [
    'POST /v1/donations/{donation_id}/approve',
    'POST /v1/donations/{donation_id}/decline',
  ]),
  gift_not_found: doc('Gift not found', 'No gift with this code in this book (a test key sees only sandbox gifts).', 'Check the code in the gift’s link.', ['* /v1/gifts/{code}*']),
  contribution_not_found: doc('Contribution not found', 'No contribution with this id belongs to the caller’s fund.', 'Check the id; list yours with `GET /v1/contributions`.', [
    '* /v1/contributions/{id}*',
    '* /admin/v1/contributions/{id}*',
  ]),
  contribution_not_cancellable: doc(
    'Contribution not cancellable',
    'Only a declared contribution still waiting for its money can be cancelled; this one arrived, or was cancelled already.',
    'Nothing to do; an operator reverses money that arrived by mistake.',
    ['DELETE /v1/contributions/{id}'],
  ),
  type_not_accepted: doc(
    'Type not accepted',
    'This platform takes no contributions of this type (cards need a processor it does not have).',
    'Declare one of the types the message lists.',
    ['POST /v1/contributions'],
  ),
  fund_holds_units: doc(
    'Fund holds units',
    "The fund's invested money is in units of its portfolio: it moves only at valuations, not by hand.",
    'Change the allocation (`PUT /v1/users/me/allocation`); the next valuation moves it.',
    ['POST /admin/v1/contributions', 'POST /admin/v1/users/{id}/portfolio'],
  ),
  receipt_not_found: doc('Receipt not found', 'The contribution has no receipt yet: receipts come when it clears.', 'Wait until the contribution is `success`.', [
    'GET /v1/contributions/{id}/receipt',
    'POST /admin/v1/contributions/{id}/receipt/corrections',
  ]),
  scheduled_donation_not_found: doc(
    'Recurring donation not found',
    'No recurring donation with this id belongs to the caller’s fund.',
    'Check the id; list them with `GET /v1/scheduled_donations`.',
    ['* /v1/scheduled_donations/{id}'],
  ),
  user_not_found: doc('User not found', 'No user has this slug or id, or their profile is private.', 'Check the slug.', [
    '* /v1/users/{user_id}*',
    '* /admin/v1/users/{id}*',
    'POST /admin/v1/contributions',
    'POST /admin/v1/deaths',
  ]),
  user_deleted: doc(
    'User deleted',
    'The user was forgotten at their request: their records stay, anonymous, and nothing more can be done for them.',
    'Nothing; the operator’s audit log has when.',
    ['* /admin/v1/users/{id}*'],
  ),
  slug_taken: doc('Slug taken', 'Another user already has this profile name.', 'Choose another slug.', ['PATCH /v1/users/me', 'POST /admin/v1/users']),
  fund_not_found: doc('Fund not found', 'The caller is not a member of that fund.', 'Choose one of `GET /v1/users/me/funds`.', ['PATCH /v1/users/me']),
  exchange_not_found: doc('Exchange not found', 'No exchange between portfolios is waiting for this fund.', 'Nothing to cancel: read `GET /v1/users/me/allocation`.', [
    'DELETE /v1/users/me/allocation/exchange',
  ]),

  // Non-profits.
  non_profit_not_found: doc(
    'Non-profit not found',
    'No organisation with this EIN is in the directory.',
    'Check the EIN (nine digits); search with `GET /v1/non_profits?query=`.',
    [
      'GET /v1/non_profits/{ein}',
      'POST /v1/donations',
      'POST /v1/gifts/{code}/claim',
      'POST /v1/scheduled_donations',
      'PUT /v1/fund/successor_plan',
      'POST /v1/users/{user_id}/donations',
      'POST /admin/v1/payee_accounts',
    ],
  ),
  non_profit_ineligible: doc(
    'Non-profit ineligible',
    'The IRS does not list contributions to this organisation as deductible, or it is not in good standing.',
    'Choose another organisation; the directory marks eligible ones.',
    ['POST /v1/donations', 'POST /v1/gifts/{code}/claim', 'POST /v1/scheduled_donations', 'POST /v1/users/{user_id}/donations'],
  ),
  non_profit_revoked: doc('Non-profit revoked', "The IRS revoked the organisation's exemption.", 'Choose another organisation.', [
    'POST /v1/donations',
    'POST /v1/gifts/{code}/claim',
    'POST /v1/scheduled_donations',
  ]),
  non_profit_sanctioned: doc(
    'Non-profit sanctioned',
    "The organisation matches a sanctions list: the platform's operator must not pay it.",
    'Choose another organisation; an operator reviews matches.',
    ['POST /v1/donations', 'POST /v1/gifts/{code}/claim', 'POST /v1/scheduled_donations'],
  ),
  non_profit_private_foundation: doc('Private foundation', 'A donor-advised fund may not give to a private non-operating foundation.', 'Choose a public charity.', [
    'POST /v1/donations',
    'POST /v1/gifts/{code}/claim',
    'POST /v1/scheduled_donations',
  ]),
  non_profit_supporting_organization: doc(
    'Supporting organisation',
    'A donor-advised fund may not give to this kind of supporting organisation (Type III non-functionally integrated).',
    'Choose a public charity.',
    ['POST /v1/donations', 'POST /v1/gifts/{code}/claim', 'POST /v1/scheduled_donations'],
  ),

  // Keys, webhooks, apps.
  api_key_not_found: doc('API key not found', 'No key with this id belongs to the caller.', 'List your keys with `GET /v1/api_keys`.', ['DELETE /v1/api_keys/{id}']),
  webhook_endpoint_not_found: doc('Webhook endpoint not found', 'No endpoint with this id belongs to the caller (in this book).', 'List them with `GET /v1/webhook_endpoints`.', [
    '* /v1/webhook_endpoints/{id}*',
  ]),
  webhook_endpoint_limit: doc('Webhook endpoint limit', 'The caller has as many endpoints as one may.', 'Delete one you no longer use.', ['POST /v1/webhook_endpoints']),
  invalid_url: doc(
    'Invalid URL',
    'The endpoint URL is not an https:// address on the public internet (private and local addresses are refused unless the operator allows them).',
    'Use a public https:// URL; on a laptop, `alms listen --forward-to` delivers to a local one.',
    ['POST /v1/webhook_endpoints', 'PATCH /v1/webhook_endpoints/{id}'],
  ),
  app_not_found: doc('App not found', 'No app with this client id is registered here (or it was disabled).', 'Check the client id.', ['* /admin/v1/apps/{client_id}*']),
  app_deleted: doc('App deleted', 'The app was deleted by its developer.', 'Nothing to enable or disable.', ['* /admin/v1/apps/{client_id}*']),
  app_unchanged: doc('App unchanged', 'The app is already in the state asked for.', 'Nothing to do.', ['* /admin/v1/apps/{client_id}*']),
  connection_not_found: doc('Connection not found', 'The donor has no connection to this app.', 'Nothing to disconnect.'),
  interaction_expired: doc('Sign-in expired', 'The Login with Almoner sign-in expired or was opened in another browser.', 'Go back to the app and start again.'),
  interaction_changed: doc('Signed in as someone else', 'Someone else signed in in this browser during the Login with Almoner sign-in.', 'Go back to the app and start again.'),

  // Web accounts.
  account_exists: doc('Account exists', 'This user already has a sign-in.', 'Sign in, or reset the password.'),
  email_taken: doc('E-mail taken', 'Another account signs in with this address.', 'Sign in with it, or use another address.'),
  invalid_credentials: doc('Invalid credentials', 'The e-mail and password do not match an account.', 'Check them, or reset the password.'),
  too_many_sign_ins: doc('Too many sign-ins', 'Too many failed sign-ins for this address or from this network.', 'Wait the minutes the message gives, or reset the password.'),
  reset_link_invalid: doc('Reset link invalid', 'The password-reset link is unknown, used or expired.', 'Ask for a new one.'),
  invitation_not_found: doc('Invitation not found', 'The invitation is unknown, used, withdrawn or expired.', 'Ask whoever invited you for a new one.', ['* /v1/fund/members*']),
  invitation_other_address: doc(
    'Invitation for another address',
    'A fund invitation is for the account of the address it was sent to.',
    'Sign in with that address, or ask for an invitation to yours.',
  ),

  // Shared funds.
  member_not_found: doc('Member not found', 'No member or invitation with this id in the caller’s fund.', 'List them with `GET /v1/fund/members`.', [
    'PATCH /v1/fund/members/{id}',
    'DELETE /v1/fund/members/{id}',
  ]),
  member_exists: doc('Already a member', 'The person is already a member of the fund.', 'Change their role instead.', ['POST /v1/fund/members']),
  invitation_exists: doc('Invitation exists', 'An invitation to this address is already waiting.', 'Withdraw it to send a new one.', ['POST /v1/fund/members']),
  member_limit: doc('Member limit', 'The fund has as many members and invitations as one may.', 'Remove one, or withdraw an invitation.', ['POST /v1/fund/members']),
  member_self: doc('Not yourself', 'An organizer cannot invite or change themselves this way.', 'Ask another organizer, or leave with `DELETE`.', [
    'POST /v1/fund/members',
    'PATCH /v1/fund/members/{id}',
  ]),
  member_unavailable: doc('Member unavailable', 'The person cannot be a member now (suspended or forgotten).', 'Nothing to do for now.', ['POST /v1/fund/members']),
  last_organizer: doc('Last organizer', 'A fund keeps at least one organizer: this would leave none.', 'Make another member an organizer first.', [
    'PATCH /v1/fund/members/{id}',
    'DELETE /v1/fund/members/{id}',
  ]),
  plan_invalid: doc(
    'Successor plan invalid',
    'The successor plan does not add up: shares must be whole percents summing to 100, and people and charities must exist.',
    'Fix the plan as `errors` says.',
    ['PUT /v1/fund/successor_plan'],
  ),
  death_not_found: doc('Death not found', 'No recorded death with this id.', 'List them with `GET /admin/v1/deaths`.', ['POST /admin/v1/deaths/{id}/approve']),
  death_recorded: doc('Death already recorded', 'A death is already recorded for this person.', 'Approve the one recorded.', ['POST /admin/v1/deaths']),
  death_decided: doc('Death already decided', 'The recorded death was already approved.', 'Nothing to do.', ['POST /admin/v1/deaths/{id}/approve']),
  same_operator: doc('Same operator', 'A second operator must approve what one recorded.', 'Ask another operator to approve it.', ['POST /admin/v1/deaths/{id}/approve']),

  // Operators.
  admin_token_not_found: doc('Operator token not found', 'No operator token with this id.', 'List them with `GET /admin/v1/tokens`.', ['POST /admin/v1/tokens/{id}/revoke']),
  review_not_found: doc('Review not found', 'No sanctions review with this id.', 'List them with `GET /admin/v1/sanction_reviews`.', ['* /admin/v1/sanction_reviews/{id}*']),
  review_decided: doc('Review decided', 'The sanctions review was already cleared or confirmed.', 'Nothing to do.', ['* /admin/v1/sanction_reviews/{id}*']),
  list_malformed: doc('List malformed', 'The sanctions or revocation list file could not be read.', 'Check the file against the format in the operator docs.'),
  claim_not_found: doc('Claim not found', 'No charity claim with this id.', 'List them with `GET /admin/v1/charity_claims`.', ['* /admin/v1/charity_claims/{id}*']),
  claim_decided: doc('Claim decided', 'The charity claim was already approved or rejected.', 'Nothing to do.', ['* /admin/v1/charity_claims/{id}*']),
  claim_exists: doc('Claim exists', 'The organisation already has a claim waiting or approved.', 'Wait for the decision, or ask its current people.'),
  claim_limit: doc('Claim limit', 'Too many claims from this account.', 'Wait for those waiting to be decided.'),
  claim_domain_mismatch: doc(
    'Claim domain mismatch',
    "The address is not on the organisation's own web domain.",
    "Claim with an address at the organisation's domain, or ask for a manual review.",
  ),
  claim_link_invalid: doc('Claim link invalid', 'The claim confirmation link is unknown, used or expired.', 'Start the claim again.'),
  claim_link_recent: doc('Claim link sent recently', 'A confirmation link was sent moments ago.', 'Check your mail; ask again in a few minutes.'),
  claim_not_confirmed: doc('Claim not confirmed', 'The claim’s address has not been confirmed from its link.', 'Open the link mailed to that address.'),
  claim_required: doc('Claim required', "Only the organisation's approved people may do this.", 'Claim the organisation first.'),
  ach_returns_malformed: doc(
    'ACH returns malformed',
    'The bank’s return file could not be read; nothing was recorded. `errors` gives each line.',
    'Fix or re-download the file and send it whole again.',
    ['POST /admin/v1/payments/returns'],
  ),
  paid_checks_malformed: doc(
    'Paid-checks file malformed',
    'The paid-checks file could not be read, or names checks that are not outstanding; nothing was recorded.',
    'Fix the lines `errors` names and send it whole again.',
    ['POST /admin/v1/payments/checks_paid'],
  ),
  payment_run_not_found: doc('Payment run not found', 'No payment run with this id.', 'List them with `GET /admin/v1/payment_runs`.', ['* /admin/v1/payment_runs/{id}*']),
  payment_run_exists: doc('Payment run exists', 'A run is already open: one run at a time.', 'Submit or finish the open run first.', ['POST /admin/v1/payment_runs']),
  payment_run_submitted: doc('Payment run submitted', 'The run was already submitted to the bank.', 'Record its outcomes instead.', ['POST /admin/v1/payment_runs/{id}/submit']),
  payment_not_found: doc('Payment not found', 'No payment with this id.', 'Read the run for its payments.', [
    '* /admin/v1/payments/{id}*',
    'POST /admin/v1/payments/checks_paid',
    'POST /admin/v1/payments/returns',
  ]),
  ach_not_configured: doc('ACH not configured', "The sponsor's bank details for ACH files are not set.", 'Set them (docs/payments.md) and restart.', [
    'GET /admin/v1/payment_runs/{id}/ach',
    'POST /admin/v1/payment_runs',
  ]),
  payee_key_not_configured: doc('Payee key not configured', 'The key that seals charities’ bank accounts is not set.', 'Set `PAYEE_KEY` and restart.', [
    'POST /admin/v1/payee_accounts',
    'POST /admin/v1/payment_runs',
  ]),
  portfolio_not_found: doc('Portfolio not found', 'No portfolio with this id is offered.', 'List them with `GET /v1/portfolios`.', [
    'PUT /v1/users/me/allocation',
    '* /admin/v1/portfolios/{id}*',
    'POST /admin/v1/users/{id}/portfolio',
  ]),
  portfolio_exists: doc('Portfolio exists', 'A portfolio with this name already exists.', 'Choose another name.', ['POST /admin/v1/portfolios']),
  portfolio_retired: doc('Portfolio retired', 'The portfolio no longer takes new money.', 'Choose another portfolio.', [
    'PUT /v1/users/me/allocation',
    'POST /admin/v1/portfolios/{id}/retire',
    'POST /admin/v1/users/{id}/portfolio',
  ]),
  price_missing: doc('Price missing', 'A holding of a portfolio has no price for the valuation date.', 'Record the price (`POST /admin/v1/prices`) first.', [
    'POST /admin/v1/valuations',
  ]),
  prices_malformed: doc('Prices malformed', 'The price file could not be read; `errors` gives each line.', 'Fix the lines named.', ['POST /admin/v1/prices']),
  valuation_in_future: doc('Valuation in the future', 'A valuation cannot be dated after today.', 'Value as of today or earlier.', ['POST /admin/v1/valuations']),
  valuation_not_after_last: doc('Valuation not after the last', 'A valuation must come after the last one.', 'Date it later than the last valuation.', [
    'POST /admin/v1/valuations',
  ]),
} as const satisfies Record<string, ProblemDoc>;

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
