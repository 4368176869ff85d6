export * from './ledger.ts';
export * from './ledger.store.ts';
