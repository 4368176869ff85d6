export * from './charities.ts';
export {
  claimantAddresses,
  claimantsOf,
  claimLinkTarget,
  claimsOfUser,
  claimTarget,
  confirmClaim,
  decideClaim,
  listClaims,
  requireClaimant,
  startClaim,
} from './charities.service.ts';
