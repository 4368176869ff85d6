export { createUser, createUserAudited, sandboxUserFor, listUsers, setUserStatus, statement, fundOfUser, createKeyForOwner, keysOfOwner, revokeKeyOfOwner, userIdBySlug, getProfile, listUserCauses, getBalance, visibleUser, avatarUrl, updateProfile, slugProblem, RESERVED_SLUGS, SLUG_MAX, type ProfileChange, type NewUser, type User, type Fund } from './users.service.ts';
export { insertFollow, currentFund, findUserById } from './users.store.ts';
export { findUserBySlug, fundCauseIds } from './users.store.ts';
