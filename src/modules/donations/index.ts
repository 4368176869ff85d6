export * from './donations.ts';
export * from './donations.service.ts';
export * from './donations.lists.ts';
export * from './donations.exports.ts';
export { decideRequest, expireRequests, givesByRequest, waitingRequests, withdrawRequestsOf } from './donations.requests.ts';
export { payOutMany, type PayOut } from './donations.payout.ts';
export {
  checkFundraiserOfDonation,
  fundraiserOpenOn,
  fundraiserStatusOn,
  fundraiserTotals,
  fundraiserSupporters,
  ownDonationsOfFundraiser,
  type FundraiserStatus,
} from './donations.fundraiser.ts';
export { endMatchIn, giveMatchedIn, liveMatchesOf, matchFor, type LiveMatch } from './donations.matches.ts';
