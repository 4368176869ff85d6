// Problems of money and state: donations, gifts, contributions, users, non-profits.
// Part of the problem-code catalogue (problem-codes.ts).
import { doc, type ProblemDoc } from './problem-docs.ts';

export const MONEY_PROBLEMS = {
  // Money and state.
  insufficient_funds: doc(
    'Insufficient funds',
    "The fund's available balance is less than this needs (held and pending money does not count).",
    'Give less, add money (a contribution), or wait for pending money to clear.',
    [
      'POST /v1/donations',
      'POST /v1/gifts',
      'PUT /v1/users/me/allocation',
      'POST /v1/users/me/allocation/investments',
      'POST /v1/donations/{donation_id}/approve',
      'POST /v1/users/{user_id}/donations',
    ],
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
  own_request: doc(
    'Own request',
    'A request is decided by someone other than who asked for it (four eyes), even once they hold a role that decides requests.',
    'Ask another organizer or advisor of the fund to decide it; withdraw it yourself with DELETE if you no longer want it.',
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
  external_id_exists: doc(
    'External id exists',
    'You gave another object of this kind the same external_id (an app’s own id for it is unique per owner).',
    'The detail names the one that has it: read it (a retry after a lost answer made it already), or give another id.',
    ['POST /v1/donations', 'POST /v1/users/{user_id}/donations', 'POST /v1/gifts', 'POST /v1/scheduled_donations', 'POST /v1/contributions', 'POST /v1/fundraisers'],
  ),
  fundraiser_not_found: doc(
    'Fundraiser not found',
    'No fundraiser has this id in the book you act in (a sandbox key sees only sandbox fundraisers).',
    'Check the id; list your own with GET /v1/fundraisers.',
    [
      'POST /v1/donations',
      'POST /v1/users/{user_id}/donations',
      'POST /v1/scheduled_donations',
      'GET /v1/fundraisers/{id}',
      'PATCH /v1/fundraisers/{id}',
      'POST /v1/fundraisers/{id}/end',
      'GET /v1/donations',
    ],
  ),
  fundraiser_not_open: doc(
    'Fundraiser not open',
    'The fundraiser takes donations from its first day to its last, unless its organiser ended it; today is outside that.',
    'Give to the organisation without naming the fundraiser, or wait for its first day.',
    ['POST /v1/donations', 'POST /v1/users/{user_id}/donations', 'POST /v1/scheduled_donations'],
  ),
  fundraiser_other_organisation: doc(
    'Fundraiser raises for another organisation',
    'A donation to a fundraiser goes to the organisation the fundraiser raises for, and this one names another EIN.',
    'Give to the fundraiser’s organisation (its `non_profit.ein`), or leave out `fundraiser_id`.',
    ['POST /v1/donations', 'POST /v1/users/{user_id}/donations', 'POST /v1/scheduled_donations'],
  ),
  donation_matched: doc(
    'Donation matched',
    'A donation to a fundraiser that a match answered, or a match’s own donation, is given: withdrawing it would undo the other.',
    'Nothing to do: it goes to the organisation with its match.',
    ['DELETE /v1/donations/{donation_id}'],
  ),
  match_not_found: doc('Match not found', 'None of your matches has this id (in the book you act in).', 'List yours with GET /v1/matches.', [
    'POST /v1/matches/{id}/end',
    'GET /v1/matches/{id}',
  ]),
  match_ended: doc('Match ended', 'The match has ended already: what was left of it was given or went back to the fund.', 'Nothing to do.', ['POST /v1/matches/{id}/end']),
  fundraiser_ended: doc('Fundraiser ended', 'The fundraiser was ended already (by its organiser, or its last day has passed).', 'Nothing to do: it takes no more donations.', [
    'POST /v1/fundraisers/{id}/end',
  ]),
  portfolio_not_chosen: doc(
    'No portfolio chosen',
    'Money is invested in the portfolio the fund chose, and it has chosen none (cash only).',
    'Choose a portfolio (`PUT /v1/users/me/allocation`, or Invest on the web), then invest.',
    ['POST /v1/users/me/allocation/investments'],
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
    'Scheduled donation not found',
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
  fund_not_found: doc('Fund not found', 'The caller is not a member of that fund.', 'Choose one of `GET /v1/users/me/funds` (at a checkout, `GET /v1/dafpay/funds`).', [
    'PATCH /v1/users/me',
    'POST /v1/dafpay/grants',
  ]),
  checkpoint_not_found: doc(
    'Checkpoint not found',
    "The book's log has no signed checkpoint of that size (or none yet: one is made once entries are in the log).",
    'List the checkpoints with GET /v1/ledger/checkpoints and ask for one of their sizes.',
    ['GET /v1/ledger/checkpoints/latest', 'GET /v1/ledger/consistency', 'GET /v1/ledger/checkpoints/{size}'],
  ),
  proof_not_ready: doc(
    'Proof not ready',
    "Some of this donation's journal entries are not yet in a signed checkpoint of the log.",
    'Try again after the next checkpoint (made every LEDGER_CHECKPOINT_INTERVAL_MS, or after LEDGER_CHECKPOINT_ENTRIES entries).',
    ['GET /v1/donations/{donation_id}/proof'],
  ),
  grant_not_found: doc(
    'Grant not found',
    'No grant of a fund you are a member of has this id in the book you act in; an app reads only the grants its own tokens made.',
    'Use the id the grant was made with (POST /v1/dafpay/grants answered it).',
    ['GET /v1/dafpay/grants/{id}'],
  ),
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
} as const satisfies Record<string, ProblemDoc>;
