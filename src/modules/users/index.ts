export { createUser, createUserAudited, sandboxUserFor, listUsers, setUserStatus, statement, getProfile, listUserCauses, getBalance, visibleUser, avatarUrl, type NewUser, type User, type Fund } from './users.service.ts';
export { insertFollow, currentFund, findUserById } from './users.store.ts';
