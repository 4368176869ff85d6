export * from './portfolio.service.ts';
