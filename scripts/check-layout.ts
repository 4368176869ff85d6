// The layout rules of docs/code-map.md that dependency-cruiser cannot see,
// checked on the TypeScript program itself (npm run lint:layout, in CI):
//   1. SQL lives in stores: no query builder call, no `sql` or
//      `CompiledQuery` from kysely, outside `*.store.ts` and `src/db/`.
//   2. The app, the web, the CLI, the demo and `http/` call services, never a
//      store function, even one a module's index.ts re-exports.
//   3. Every function a store exports is exercised by the test beside it
//      (`x.store.ts` -> `x.store.test.ts`, which runs on both engines).
//   4. No file in src/ is longer than 400 lines.
//   5. Only src/db/ and platform.ts name the `Engine` type: elsewhere what differs between the
//      engines is asked of the connection (`dialectOf(db)`, src/db/dialect.ts), never passed down.
//   6. Only platform.ts builds what a node keeps in memory (Deps' `runtime`, src/deps.ts): no other
//      file sets or makes a `runtime`, and none keeps state per Deps or per database in a
//      module-level WeakMap.
// Exit status 1 and one line per violation when any rule is broken.
import { existsSync, readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import ts from 'typescript';
import { LONG_FUNCTIONS } from './long-functions.ts';

const ROOT = resolve(import.meta.dirname, '..');
const MAX_LINES = 400;
const RAW_SQL = new Set(['sql', 'CompiledQuery']);
const QUERY_METHODS = new Set(['selectFrom', 'insertInto', 'updateTable', 'deleteFrom', 'replaceInto', 'mergeInto', 'executeQuery']);

/** The longest a function may be (docs/code-map.md): outside migrations and route tables, longer ones are in LONG_FUNCTIONS, which may only shrink. */
const MAX_FUNCTION_LINES = 70;
const isRouteTable = (file: string) => file.endsWith('.routes.ts') || file.startsWith('src/web/routes/') || file.startsWith('src/db/migrations/');
/** Money's words: a value named so is money, and its arithmetic by 100 belongs in shared/money.ts. */
const MONEY_WORDS = /cents|amount|dollar|balance|invest/i;

/** A function's name for the allowlist: its own, its variable's or property's, or the named function it is written in. */
function functionName(node: ts.Node): string {
  const named = (n: ts.Node): string | undefined => {
    if ((ts.isFunctionDeclaration(n) || ts.isMethodDeclaration(n) || ts.isFunctionExpression(n)) && n.name !== undefined) return n.name.getText();
    if (n.parent !== undefined && (ts.isVariableDeclaration(n.parent) || ts.isPropertyAssignment(n.parent) || ts.isPropertyDeclaration(n.parent))) return n.parent.name.getText();
    return undefined;
  };
  const own = named(node);
  if (own !== undefined) return own;
  for (let n = node.parent; n !== undefined; n = n.parent) {
    if (ts.isFunctionLike(n)) {
      const outer = named(n);
      if (outer !== undefined) return `${outer} (a function in it)`;
    }
  }
  return '(a function at module level)';
}

const rel = (file: string) => relative(ROOT, file).split('\\').join('/');
const isStore = (file: string) => file.endsWith('.store.ts');
const isDb = (file: string) => file.startsWith('src/db/');
const isTest = (file: string) => file.endsWith('.test.ts');
const callsServices = (file: string) => !file.startsWith('src/modules/') && !isDb(file) && !file.startsWith('src/shared/');

/** True for an expression outside any function: state of the module, made once at import. */
function isModuleLevel(node: ts.Node): boolean {
  for (let n = node.parent; n !== undefined; n = n.parent) if (ts.isFunctionLike(n) || ts.isClassLike(n)) return false;
  return true;
}

export function checkLayout(root: string = ROOT, longFunctions: Readonly<Record<string, number>> = LONG_FUNCTIONS): string[] {
  const config = ts.getParsedCommandLineOfConfigFile(resolve(root, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
  if (config === undefined) return ['tsconfig.json cannot be read'];
  const program = ts.createProgram({ rootNames: config.fileNames, options: config.options });
  const checker = program.getTypeChecker();
  const problems: string[] = [];
  const seenLong = new Map<string, number>();
  const at = (sf: ts.SourceFile, node: ts.Node) => `${relative(root, sf.fileName).split('\\').join('/')}:${sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1}`;

  for (const sf of program.getSourceFiles()) {
    const file = relative(root, sf.fileName).split('\\').join('/');
    if (!file.startsWith('src/') || isTest(file)) continue;

    const lines = sf.text.split('\n').length - (sf.text.endsWith('\n') ? 1 : 0);
    if (lines > MAX_LINES) problems.push(`${file}: ${lines} lines (at most ${MAX_LINES}): split it by concern`);

    const visit = (node: ts.Node): void => {
      // One calendar-day rule (shared/days.ts): Date.parse rolls 2026-02-30 over to March 2.
      if (file !== 'src/shared/days.ts' && ts.isRegularExpressionLiteral(node) && node.text.includes('\\d{4}-\\d{2}-\\d{2}$/')) {
        problems.push(`${at(sf, node)}: a calendar day checked by hand: use isCalendarDay (src/shared/days.ts)`);
      }
      // Money's text and arithmetic live in shared/money.ts.
      if (file !== 'src/shared/money.ts') {
        if (
          ts.isCallExpression(node) &&
          ts.isPropertyAccessExpression(node.expression) &&
          node.expression.name.text === 'toLocaleString' &&
          node.arguments.some((a) => /currency/.test(a.getText(sf)))
        ) {
          problems.push(`${at(sf, node)}: currency text outside src/shared/money.ts: use usdText (cents) or usdOfDollars`);
        }
        if (
          ts.isBinaryExpression(node) &&
          (node.operatorToken.kind === ts.SyntaxKind.AsteriskToken || node.operatorToken.kind === ts.SyntaxKind.SlashToken) &&
          [node.left, node.right].some((side) => ts.isNumericLiteral(side) && side.text === '100') &&
          [node.left, node.right].some((side) => MONEY_WORDS.test(side.getText(sf)))
        ) {
          problems.push(`${at(sf, node)}: money multiplied or divided by 100 outside src/shared/money.ts: use centsToDollars, centsOfDollars, dollarsText or allocate`);
        }
      }
      if (!isRouteTable(file) && ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
        const lines = sf.getLineAndCharacterOfPosition(node.getEnd()).line - sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
        if (lines > MAX_FUNCTION_LINES) {
          const key = `${file}: ${functionName(node)}`;
          seenLong.set(key, Math.max(seenLong.get(key) ?? 0, lines));
        }
      }
      if (!isStore(file) && !isDb(file)) {
        if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && QUERY_METHODS.has(node.expression.name.text)) {
          problems.push(`${at(sf, node)}: SQL outside a store (.${node.expression.name.text}): move it to the module's store`);
        }
        if (ts.isTaggedTemplateExpression(node) && ts.isIdentifier(node.tag) && node.tag.text === 'sql') {
          problems.push(`${at(sf, node)}: SQL outside a store (sql\`...\`): move it to the module's store`);
        }
        // Raw SQL (sql.raw, CompiledQuery) starts from these imports.
        if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier) && node.moduleSpecifier.text === 'kysely' && node.importClause?.isTypeOnly !== true) {
          const bindings = node.importClause?.namedBindings;
          for (const spec of bindings !== undefined && ts.isNamedImports(bindings) ? bindings.elements : []) {
            if (!spec.isTypeOnly && RAW_SQL.has((spec.propertyName ?? spec.name).text)) {
              problems.push(`${at(sf, spec)}: SQL outside a store (${spec.name.text} from kysely): move it to the module's store`);
            }
          }
        }
      }
      if (!isDb(file) && file !== 'src/platform.ts' && ts.isImportDeclaration(node) && node.importClause?.namedBindings !== undefined) {
        const bindings = node.importClause.namedBindings;
        for (const spec of ts.isNamedImports(bindings) ? bindings.elements : []) {
          if ((spec.propertyName ?? spec.name).text === 'Engine') problems.push(`${at(sf, spec)}: Engine outside src/db/: ask the connection (dialectOf(db)) instead`);
        }
      }
      if (file !== 'src/platform.ts') {
        const setsRuntime =
          (ts.isPropertyAssignment(node) && ts.isIdentifier(node.name) && node.name.text === 'runtime') ||
          (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.EqualsToken && ts.isPropertyAccessExpression(node.left) && node.left.name.text === 'runtime');
        if (setsRuntime) problems.push(`${at(sf, node)}: a runtime made outside platform.ts: add its part to buildRuntime there`);
      }
      if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'WeakMap' && node.parent !== undefined && isModuleLevel(node)) {
        const key = node.typeArguments?.[0]?.getText(sf);
        if (key === undefined || ['Deps', 'Db', 'object'].includes(key)) {
          problems.push(`${at(sf, node)}: state kept per Deps or database in a module-level WeakMap: make it a part of the runtime (src/deps.ts, built in platform.ts)`);
        }
      }
      if (callsServices(file) && ts.isImportDeclaration(node) && node.importClause !== undefined && !node.importClause.isTypeOnly) {
        const bindings = node.importClause.namedBindings;
        if (bindings !== undefined && ts.isNamedImports(bindings)) {
          for (const spec of bindings.elements) {
            if (spec.isTypeOnly) continue;
            const symbol = checker.getSymbolAtLocation(spec.name);
            const target = symbol === undefined ? undefined : (symbol.flags & ts.SymbolFlags.Alias) !== 0 ? checker.getAliasedSymbol(symbol) : symbol;
            const declaration = target?.declarations?.[0];
            if (target === undefined || declaration === undefined || (target.flags & ts.SymbolFlags.Value) === 0) continue;
            const from = relative(root, declaration.getSourceFile().fileName).split('\\').join('/');
            if (isStore(from)) problems.push(`${at(sf, spec)}: ${spec.name.text} is a store function (${from}): call a service instead`);
          }
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);

    if (isStore(file)) {
      const testFile = sf.fileName.replace(/\.store\.ts$/, '.store.test.ts');
      const testText = existsSync(testFile) ? readFileSync(testFile, 'utf8') : undefined;
      for (const statement of sf.statements) {
        const exported = ts.canHaveModifiers(statement) && ts.getModifiers(statement)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
        if (!exported || !ts.isFunctionDeclaration(statement) || statement.name === undefined) continue;
        const name = statement.name.text;
        if (testText === undefined) {
          problems.push(`${file}: ${name} has no test: ${rel(testFile)} does not exist`);
        } else if (!new RegExp(`\\b${name}\\b`).test(testText)) {
          problems.push(`${file}: ${name} is not exercised by ${rel(testFile)}`);
        }
      }
    }
  }
  for (const [key, lines] of seenLong) {
    const allowed = longFunctions[key];
    if (allowed === undefined) problems.push(`${key} is ${lines} lines (at most ${MAX_FUNCTION_LINES}): split it`);
    else if (lines > allowed) problems.push(`${key} grew to ${lines} lines (allowed ${allowed} while it waits to be split; at most ${MAX_FUNCTION_LINES} for any other)`);
    else if (lines < allowed) problems.push(`${key} is now ${lines} lines: lower its allowance in scripts/long-functions.ts to ${lines}`);
  }
  for (const key of Object.keys(longFunctions)) {
    if (!seenLong.has(key)) problems.push(`${key} is ${MAX_FUNCTION_LINES} lines or fewer now (or gone): remove it from scripts/long-functions.ts`);
  }
  return problems;
}

if (import.meta.main) {
  const problems = checkLayout();
  for (const p of problems) process.stderr.write(`${p}\n`);
  if (problems.length > 0) {
    process.stderr.write(`\n${problems.length} layout rule(s) broken (scripts/check-layout.ts; docs/code-map.md)\n`);
    process.exit(1);
  }
  process.stdout.write(
    'layout: one calendar-day rule, money text and arithmetic in shared/money.ts, functions of at most 70 lines (scripts/long-functions.ts shrinking), SQL only in stores, no store called from outside the modules, every store function tested beside it, no file over 400 lines, no engine outside src/db/, runtime state built only in platform.ts\n',
  );
}
