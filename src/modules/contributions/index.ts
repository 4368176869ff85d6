export * from './contributions.ts';
export * from './contributions.service.ts';
export { cancelContribution, declarationsAwaitingMoney, declareContribution, declaredForm, recordArrivalAudited, type Declaration } from './contributions.declarations.ts';
