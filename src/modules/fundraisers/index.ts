export { fundraiserRoutes } from './fundraisers.routes.ts';
export { Fundraiser, Match } from './fundraisers.schema.ts';
export { fundraiserProblems, matchProblems } from './fundraisers.check.ts';
export { createFundraiser, endFundraiserOf, fundraiserForViewer, getFundraiser, listFundraisers, type NewFundraiser } from './fundraisers.service.ts';
export { createMatch, endMatchOf, getMatch, listMatches } from './matches.service.ts';
export { statusOn, progress, RAISED_STATUSES } from './fundraisers.ts';
