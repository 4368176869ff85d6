// Gift rules.
export const GIFT_STATUSES = ['new', 'accepted', 'denied', 'claimed'] as const;
export type GiftStatus = (typeof GIFT_STATUSES)[number];
export const GIFT_MIN_CENTS = 1800; // spec 8: at least 18
