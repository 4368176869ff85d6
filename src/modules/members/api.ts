// The membership module's use cases and routes (rules §20): inviting, accepting, changing roles,
// removing and leaving, choosing the fund one acts on. For the doors (API, web, CLI) and the
// modules above membership (succession); the core other modules use is index.ts.
export {
  acceptInvitation,
  chooseFund,
  endMembership,
  fundActivity,
  fundsOf,
  invitationByLink,
  inviteMember,
  listMembers,
  removeMember,
  changeMemberRole,
} from './members.service.ts';
export { memberRoutes } from './members.routes.ts';
