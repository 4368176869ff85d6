export * from './diligence.ts';
export { decideReview, listsInForce, pendingReviews, readListFile, recordList, screenDirectory, type ListFile, type Screening } from './diligence.service.ts';
