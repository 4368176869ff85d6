export { acceptInvitation, chooseFund, fundActivity, fundsOf, invitationByLink, inviteMember, listMembers, removeMember, changeMemberRole } from './sharing.service.ts';
export { approveDeath, getPlan, listDeaths, recordDeath, setPlan } from './successors.service.ts';
export { sharingRoutes } from './sharing.routes.ts';
export { deathOperatorRoutes } from './sharing.admin.routes.ts';
