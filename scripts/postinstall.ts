// After `npm install` / `npm ci`: say which Node the project's scripts run on.
// npm itself may run on an older Node (the machine's); every npm script runs
// on the Node 24 that the `node` devDependency installed, so the install's
// engine warnings about that older Node are silenced in .npmrc and this line
// says what is true instead.
const npmNode = /node\/(v[\d.]+)/.exec(process.env.npm_config_user_agent ?? '')?.[1];
const where = npmNode === undefined || npmNode === process.version ? '' : ` (npm itself ran on Node ${npmNode}; that is fine)`;
process.stdout.write(`almoner: installed. Every npm script runs on Node ${process.version}, the project's pinned Node 24${where}.\n`);
