export * from './check.service.ts';
