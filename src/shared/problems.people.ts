// Problems of keys, webhooks and apps, web accounts, shared funds and operators' work.
// Part of the problem-code catalogue (problem-codes.ts).
import { doc, type ProblemDoc } from './problem-docs.ts';

export const PEOPLE_PROBLEMS = {
  // Keys, webhooks, apps.
  api_key_not_found: doc('API key not found', 'No key with this id belongs to the caller.', 'List your keys with `GET /v1/api_keys`.', ['DELETE /v1/api_keys/{id}']),
  webhook_endpoint_not_found: doc('Webhook endpoint not found', 'No endpoint with this id belongs to the caller (in this book).', 'List them with `GET /v1/webhook_endpoints`.', [
    '* /v1/webhook_endpoints/{id}*',
  ]),
  event_not_found: doc('Event not found', 'No event with this id belongs to the caller.', 'List yours with `GET /v1/events`.', ['GET /v1/events/{id}/delivery']),
  webhook_endpoint_limit: doc('Webhook endpoint limit', 'The caller has as many endpoints as one may.', 'Delete one you no longer use.', ['POST /v1/webhook_endpoints']),
  invalid_url: doc(
    'Invalid URL',
    'The endpoint URL is not an https:// address on the public internet (private and local addresses are refused unless the operator allows them).',
    'Use a public https:// URL; on a laptop, `alms listen --forward-to` delivers to a local one.',
    ['POST /v1/webhook_endpoints', 'PATCH /v1/webhook_endpoints/{id}'],
  ),
  app_not_found: doc('App not found', 'No app with this client id is registered here (or it was disabled).', 'Check the client id.', ['* /admin/v1/apps/{client_id}*']),
  return_url_not_registered: doc(
    'Return address not registered',
    'A donate link sends the donor back only to an address on an origin its app registered (no open redirect), and only with app= naming that app.',
    'Register the address’s origin as one of the app’s redirect URIs, or name the app with app=.',
  ),
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
  address_unconfirmed: doc(
    'Address not confirmed',
    'Nothing waiting at an e-mail address (an invitation, gifts, a charity claim) is handed to an account until the address is proven by the link mailed to it.',
    'Follow the confirmation link in the mail; the dashboard sends it again.',
  ),
  confirmation_invalid: doc('Confirmation link invalid', 'The address-confirmation link is unknown.', 'Ask for a new one from the dashboard.'),
  confirmation_used: doc('Confirmation link used', 'The address-confirmation link was used already: the address is confirmed.', 'Nothing to do.'),
  confirmation_expired: doc('Confirmation link expired', 'The address-confirmation link is older than 48 hours, or a newer one was sent.', 'Ask for a new one from the dashboard.'),
  confirmation_other_account: doc(
    'Confirmation for another account',
    'An address-confirmation link proves the address for the account that asked for it, not for whoever follows it.',
    'Sign in with the account the link was sent for.',
  ),
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
  same_operator: doc('Same operator', 'A second operator must approve what one recorded.', 'Ask another operator to approve it.', [
    'POST /admin/v1/deaths/{id}/approve',
    'POST /admin/v1/payment_runs/{id}/approve',
    'POST /admin/v1/payee_accounts/{id}/approve',
  ]),

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
  claim_mail_limit: doc(
    'Claim mail limit',
    'This address received as many claim links in the last hour as it may, from every account together.',
    'Follow a link already sent, or ask again in an hour (`Retry-After`).',
  ),
  claim_link_recent: doc('Claim link sent recently', 'A confirmation link was sent moments ago.', 'Check your mail; ask again in a few minutes.'),
  claim_not_confirmed: doc('Claim not confirmed', 'The claim’s address has not been confirmed from its link.', 'Open the link mailed to that address.'),
  bank_details_unavailable: doc(
    'Bank details cannot be saved now',
    'The platform is not ready to take bank details yet; its operator has been told.',
    'Try again later. Meanwhile the organisation is paid by check, at its address in the IRS records.',
  ),
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
  payment_exception_not_found: doc('Payment exception not found', 'No payment exception with this id in this book.', 'List them with `GET /admin/v1/payment_exceptions`.', [
    'POST /admin/v1/payment_exceptions/{id}/resolve',
  ]),
  payment_exception_resolved: doc('Payment exception resolved', 'The exception was resolved already; a resolution is recorded once.', 'Read it in the list; nothing to do.', [
    'POST /admin/v1/payment_exceptions/{id}/resolve',
  ]),
  payment_run_empty: doc('Payment run empty', 'No approved donation waits for a payment: a run would give the bank a batch with no entry.', 'Approve donations first.', [
    'POST /admin/v1/payment_runs',
  ]),
  payment_run_not_found: doc('Payment run not found', 'No payment run with this id.', 'List them with `GET /admin/v1/payment_runs`.', ['* /admin/v1/payment_runs/{id}*']),
  payment_run_exists: doc('Payment run exists', 'The book has a run for this pay date already (a withdrawn one too).', 'Use that run, or open one for another banking day.', [
    'POST /admin/v1/payment_runs',
  ]),
  payment_run_submitted: doc('Payment run submitted', 'The run was already submitted to the bank.', 'Record its outcomes instead.', [
    'POST /admin/v1/payment_runs/{id}/submit',
    'POST /admin/v1/payment_runs/{id}/approve',
    'POST /admin/v1/payment_runs/{id}/withdraw',
  ]),
  payment_run_withdrawn: doc('Payment run withdrawn', 'The run was withdrawn: its donations wait for another run.', 'Open a run for another date.', [
    'POST /admin/v1/payment_runs/{id}/submit',
    'POST /admin/v1/payment_runs/{id}/approve',
    'POST /admin/v1/payment_runs/{id}/withdraw',
  ]),
  payment_run_unapproved: doc(
    'Payment run not approved',
    'Money out needs two people: a second operator approves a run before it is submitted.',
    'Ask another operator to approve it (`almoner payments run approve ID`).',
    ['POST /admin/v1/payment_runs/{id}/submit'],
  ),
  payment_run_approved: doc('Payment run approved', 'The run was approved already.', 'Submit it.', ['POST /admin/v1/payment_runs/{id}/approve']),
  payee_account_not_pending: doc(
    'Bank details not waiting',
    'No bank details with this id wait for approval.',
    'List an organisation’s details with `almoner nonprofits bank-details EIN --show`.',
    ['POST /admin/v1/payee_accounts/{id}/approve'],
  ),
  payment_not_found: doc('Payment not found', 'No payment with this id.', 'Read the run for its payments.', [
    '* /admin/v1/payments/{id}*',
    'POST /admin/v1/payments/checks_paid',
    'POST /admin/v1/payments/returns',
  ]),
  ach_file_empty: doc(
    'No ACH payment',
    'The run pays no one by ACH (or each ACH payment was left out): a NACHA file with no entry is one a bank rejects.',
    'Send only its checks.',
    ['GET /admin/v1/payment_runs/{id}/ach'],
  ),
  ach_not_configured: doc('ACH not configured', "The sponsor's bank details for ACH files are not set.", 'Set the `ACH_*` settings (docs/configuration.md) and restart.', [
    'GET /admin/v1/payment_runs/{id}/ach',
    'POST /admin/v1/payment_runs',
  ]),
  payee_key_not_configured: doc(
    'Payee key not configured',
    'The key that seals charities’ bank accounts is not set.',
    'Set `PAYEE_DATA_KEY` (or `PAYEE_DATA_KEY_FILE`) and restart.',
    ['POST /admin/v1/payee_accounts', 'POST /admin/v1/payment_runs'],
  ),
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
  valuation_running: doc(
    'Valuation running',
    'A valuation started earlier (one a crash or a stopped server interrupted) is still valuing its funds; valuations run one at a time.',
    'Wait for it: a running server finishes it by itself, or run `almoner valuation finish`.',
    ['POST /admin/v1/valuations'],
  ),
} as const satisfies Record<string, ProblemDoc>;
