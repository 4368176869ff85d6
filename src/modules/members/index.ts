// The membership module's core, for other modules: roles and what each may do, who acts on which
// fund, the sandbox twins, the store. Its use cases and routes are in api.ts (they call modules that
// call this core, so they sit above them).
export * from './members.ts';
export { actingOf, actingOnFund, addMember, startFund, type Acting, type Person } from './members.acting.ts';
export { mirrorCurrentFund, mirrorMember, mirrorNewTwin, type EnsureTwin } from './members.twins.ts';
export * as membersStore from './members.store.ts';
export type { Member } from './members.store.ts';
export { memberProblems } from './members.check.ts';
