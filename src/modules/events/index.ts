export * from './events.store.ts';
