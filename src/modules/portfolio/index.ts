export * from './portfolio.service.ts';
export * from './portfolios.ts';
export { createPortfolio, getPortfolio, importPriceFile, importPrices, listPortfolios, retirePortfolio, runValuation, type PortfolioView } from './portfolios.service.ts';
