export { runRetention, type RetentionResult } from './retention.service.ts';
