export * from './audit.store.ts';
