export * from './ledger.ts';
export * from './ledger.store.ts';
export { openBooks } from './ledger.service.ts';
export * from './ledger.encoding.ts';
export * from './ledger.log.ts';
export { LogTail } from './ledger.tail.ts';
export { ledgerRoutes, LedgerCheckpoint, DonationProof } from './ledger.routes.ts';
export { ledgerProblems, verifyExport, checkpointProblems, type ExportedLeaf, type PublishedCheckpoint } from './ledger.verify.ts';
