export { exportUser, forgetUser } from './privacy.service.ts';
