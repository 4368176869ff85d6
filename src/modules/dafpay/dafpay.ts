// Giving at a charity's checkout (rules §24): a checkout provider (DAFpay) signs a donor in with
// Login with Almoner, with the `dafpay` scope alone, and grants from a fund they advise.

/** A grant is whole dollars: at least a donation's least, at most what a fund may hold. */
export const GRANT_MIN_DOLLARS = 10;
export const GRANT_MAX_DOLLARS = 10_000_000;

/** A provider's tracking id: letters, digits and dashes, as the ACH addenda carry it (in capitals). */
export const TRACKING_ID_PATTERN = '^[A-Za-z0-9-]{1,64}$';
