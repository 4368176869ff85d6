// Problems of any request: reading it, who is calling, idempotency.
// Part of the problem-code catalogue (problem-codes.ts).
import { doc, type ProblemDoc } from './problem-docs.ts';

export const REQUEST_PROBLEMS = {
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
  received_differs: doc(
    'Received differs from declared',
    'What arrived for a declared contribution is worth more than 10% away from what was declared: units typed as dollars, or a price per lot.',
    'Check the units and the valuation (cash: `--amount DOLLARS`); if it is right, send it again with `force` (`--force`).',
    ['POST /admin/v1/contributions/{id}/receive'],
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
} as const satisfies Record<string, ProblemDoc>;
