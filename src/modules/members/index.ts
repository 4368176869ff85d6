export * from './members.ts';
export { actingOf, addMember, startFund, type Acting, type Person } from './members.acting.ts';
export { mirrorCurrentFund, mirrorMember, mirrorNewTwin, type EnsureTwin } from './members.twins.ts';
export * as membersStore from './members.store.ts';
export type { Member } from './members.store.ts';
export { memberProblems } from './members.check.ts';
export * as successorsStore from './successors.store.ts';
