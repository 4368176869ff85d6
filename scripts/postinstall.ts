// After `npm install` / `npm ci`: build the client package (packages/client/dist, what its users
// get from `npm pack`, and what this repository's tests and `alms` import), then say which Node
// the project's scripts run on. npm itself may run on an older Node (the machine's); every npm
// script runs on the Node 24 that the `node` devDependency installed, so the install's engine
// warnings about that older Node are silenced in .npmrc and this line says what is true instead.
import { buildClient } from './client-build.ts';

const built = buildClient();
const npmNode = /node\/(v[\d.]+)/.exec(process.env.npm_config_user_agent ?? '')?.[1];
const where = npmNode === undefined || npmNode === process.version ? '' : ` (npm itself ran on Node ${npmNode}; that is fine)`;
process.stdout.write(`almoner: installed${built ? ', client built' : ''}. Every npm script runs on Node ${process.version}, the project's pinned Node 24${where}.\n`);
