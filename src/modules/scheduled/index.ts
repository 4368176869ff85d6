export * from './scheduled.ts';
export { createSchedule, listSchedules, getSchedule, cancelSchedule, runScheduler, type NewSchedule } from './scheduled.service.ts';
