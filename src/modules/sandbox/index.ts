export { runSandboxClock } from './sandbox.service.ts';
