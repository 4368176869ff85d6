export { approveDeath, getPlan, listDeaths, recordDeath, setPlan } from './succession.service.ts';
export { successionRoutes } from './succession.routes.ts';
export { deathOperatorRoutes } from './succession.admin.routes.ts';
export { DOCUMENT_REFERENCE_MAX, planProblem, splitByShares, SUCCESSORS_MAX, type SuccessorLine } from './succession.ts';
export * as successorsStore from './successors.store.ts';
