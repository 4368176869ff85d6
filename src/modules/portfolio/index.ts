export * from './operator-moves.service.ts';
export * from './unit-price.ts';
export {
  createPortfolio,
  getPortfolio,
  importPriceFile,
  importPrices,
  listPortfolios,
  retirePortfolio,
  runValuation,
  type PortfolioView,
} from './offers-and-valuations.service.ts';
export { cancelExchange, getAllocation, investmentTotals, investNow, investShareOf, setAllocation, valueHistory, type AllocationView } from './allocation.service.ts';
export { investingProblems } from './portfolio.check.ts';
export { finishRunningValuation, type RoundOptions } from './valuation.rounds.ts';
