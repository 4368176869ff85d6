export * from './portfolio.service.ts';
export * from './portfolios.ts';
export { createPortfolio, getPortfolio, importPriceFile, importPrices, listPortfolios, retirePortfolio, runValuation, type PortfolioView } from './portfolios.service.ts';
export { cancelExchange, getAllocation, investmentTotals, investShareOf, setAllocation, valueHistory, type AllocationView } from './allocation.service.ts';
export { investingProblems } from './portfolio.check.ts';
