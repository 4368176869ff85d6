export { fundraiserRoutes } from './fundraisers.routes.ts';
export { Fundraiser } from './fundraisers.schema.ts';
export { fundraiserProblems } from './fundraisers.check.ts';
export { createFundraiser, endFundraiserOf, getFundraiser, listFundraisers, type NewFundraiser } from './fundraisers.service.ts';
export { statusOn, progress, RAISED_STATUSES } from './fundraisers.ts';
