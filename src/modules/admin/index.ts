export * from './admin.service.ts';
