// The allowed arrows between the parts of src/ (docs/code-map.md), checked in
// CI by `npm run lint:deps`. Violations that existed when the rules were
// written are listed in .dependency-cruiser-known-violations.json and must
// only shrink: a new wrong arrow or cycle fails the build.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'Calls flow one way; a cycle means two parts cannot be understood apart.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'modules-through-index',
      severity: 'error',
      comment: 'A module reaches another only through its index.ts (or, for the use cases of a module with a core below others, its api.ts).',
      from: { path: '^src/modules/([^/]+)/' },
      to: { path: '^src/modules/[^/]+/', pathNot: ['^src/modules/$1/', '^src/modules/[^/]+/(index|api)\\.ts$'] },
    },
    {
      name: 'outside-through-index',
      severity: 'error',
      comment: 'The app, the web, the CLI and the demo reach a module through its index.ts or api.ts (the app mounts its routes and their schemas).',
      from: { path: '^src/', pathNot: '^src/modules/' },
      to: { path: '^src/modules/[^/]+/', pathNot: ['^src/modules/[^/]+/(index|api)\\.ts$', '^src/modules/[^/]+/[^/]+\\.(routes|schema)\\.ts$'] },
    },
    {
      name: 'shared-stands-alone',
      severity: 'error',
      comment: 'shared/ holds rules and types every layer uses; it depends on nothing else of ours.',
      from: { path: '^src/shared/' },
      to: { path: '^src/', pathNot: '^src/shared/' },
    },
    {
      name: 'db-below-modules',
      severity: 'error',
      comment: 'db/ is the engines and the schema: it knows no module, no HTTP, no web.',
      from: { path: '^src/db/' },
      to: { path: '^src/(modules|http|web|cli)/' },
    },
    {
      name: 'http-only-from-routes',
      severity: 'error',
      comment: 'Inside a module only its HTTP contract (routes and their schemas) speaks HTTP.',
      from: { path: '^src/modules/', pathNot: '\\.(routes|schema)\\.ts$' },
      to: { path: '^src/http/' },
    },
    {
      name: 'modules-know-no-web-or-cli',
      severity: 'error',
      comment: 'Modules serve the API, the web and the CLI alike; they import none of them.',
      from: { path: '^src/(modules|http|db|shared)/' },
      to: { path: '^src/(web|cli)/' },
    },
    {
      name: 'web-not-stores',
      severity: 'error',
      comment: 'The web app calls services, never a store.',
      from: { path: '^src/web/' },
      to: { path: '\\.store\\.ts$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.test\\.ts$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
