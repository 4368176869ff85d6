export * from './diligence.ts';
export { downloadAll, OFFICIAL_DOWNLOADS, type Download } from './download.ts';
export { decideReview, listsInForce, pendingReviews, readListFile, recordList, screenDirectory, type ListFile, type Screening } from './diligence.service.ts';
