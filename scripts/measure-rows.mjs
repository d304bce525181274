#!/usr/bin/env node
/**
 * Measures the typed data path (issue 27 item 1) over src-main (tests excluded), with the type checker:
 * - hand-declared row types: interfaces/type aliases named `*Row` (or `Row`) that spell columns out by hand;
 * - casts on rows: `x as T` whose operand is a better-sqlite3 `.get()`/`.all()` call;
 * - snake_case column reads outside store/: `obj.some_column` whose property is declared in store/ or comes
 *   from a `Record<string, unknown>` row (index signature), limited to state.db column names: a database row
 *   escaping the store (wire/JSON fields that share a column's name and are typed elsewhere are not counted).
 *   Most of these are wire formats that keep upstream's or a vendor's names (OpenAI messages, provider replies,
 *   upstream's export records, jobs.json, mem0.json); the next count is the one that finds a row handed out raw;
 * - snake_case keys in what the store hands out: the properties (to depth 3) of what SessionStore's public methods
 *   and its repositories' functions return, outside the wire formats the store is asked for by name (WIRE_TYPES).
 * Usage: node scripts/measure-rows.mjs [--list]
 */
import ts from 'typescript'
import path from 'node:path'

const root = process.cwd()
const list = process.argv.includes('--list')
const cfgPath = path.join(root, 'tsconfig.main.json')
const cfg = ts.getParsedCommandLineOfConfigFile(cfgPath, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic() {} })
const program = ts.createProgram(cfg.fileNames, cfg.options)
const checker = program.getTypeChecker()
const rel = (f) => path.relative(root, f)
const inStore = (f) => rel(f).startsWith('src-main/store/')
const snake = /^[a-z][a-z0-9]*(_[a-z0-9]+)+$/
// Column names of state.db tables (drizzle definitions) and of the Caduceus tables created in store/.
const columns = new Set()
for (const f of ts.sys.readDirectory(path.join(root, 'src-main/store'), ['.ts']))
  for (const m of ts.sys.readFile(f).matchAll(/\b(?:text|integer|real|blob)\('([a-z_]+)'/g)) columns.add(m[1])
for (const m of ts.sys.readFile(path.join(root, 'src-main/store/memory-events-repo.ts')).matchAll(/\['([a-z_]+)', '/g))
  columns.add(m[1])

const rowTypes = []
const casts = []
const reads = []
for (const sf of program.getSourceFiles()) {
  const file = rel(sf.fileName)
  if (!file.startsWith('src-main/') || file.endsWith('.test.ts')) continue
  const at = (n) => `${file}:${sf.getLineAndCharacterOfPosition(n.getStart()).line + 1}`
  const visit = (n) => {
    if ((ts.isInterfaceDeclaration(n) || ts.isTypeAliasDeclaration(n)) && /Row$/.test(n.name.text)) {
      const handWritten =
        ts.isInterfaceDeclaration(n) || ts.isTypeLiteralNode(n.type) || /Record<string, unknown>/.test(n.type.getText())
      if (handWritten) rowTypes.push(`${at(n)} ${n.name.text}`)
    }
    if (ts.isAsExpression(n)) {
      // The operand, or either side of a `??`/`||` between reads (`(a.get(x) ?? b.get(x)) as T`).
      const operands = (e) => {
        while (ts.isParenthesizedExpression(e)) e = e.expression
        const alt = [ts.SyntaxKind.QuestionQuestionToken, ts.SyntaxKind.BarBarToken]
        return ts.isBinaryExpression(e) && alt.includes(e.operatorToken.kind)
          ? [...operands(e.left), ...operands(e.right)]
          : [e]
      }
      const isRead = (e) =>
        ts.isCallExpression(e) &&
        ts.isPropertyAccessExpression(e.expression) &&
        ['get', 'all'].includes(e.expression.name.text)
      if (operands(n.expression).some(isRead)) casts.push(at(n))
    }
    if (
      ts.isPropertyAccessExpression(n) &&
      !inStore(sf.fileName) &&
      snake.test(n.name.text) &&
      columns.has(n.name.text)
    ) {
      const sym = checker.getSymbolAtLocation(n.name)
      const decl = sym?.declarations?.[0]
      const objType = checker.getTypeAtLocation(n.expression)
      const fromStore = decl && inStore(decl.getSourceFile().fileName)
      const fromRecord = !sym && objType.getStringIndexType() !== undefined
      const fromRowFile = decl && /Row$/.test(decl.parent?.name?.text ?? '')
      if (fromStore || fromRecord || fromRowFile) reads.push(`${at(n)} .${n.name.text}`)
    }
    ts.forEachChild(n, visit)
  }
  visit(sf)
}
// Types the store builds in a format someone else named: upstream's get_messages_as_conversation gives OpenAI messages.
const WIRE_TYPES = new Set(['ConversationMessage'])
const handedOut = []
{
  const seen = new Set()
  const walk = (t, where, depth) => {
    if (depth > 3 || !t || WIRE_TYPES.has(t.aliasSymbol?.name ?? t.symbol?.name)) return
    if (t.isUnion()) return t.types.forEach((u) => walk(u, where, depth))
    if (checker.isArrayType(t) || checker.isTupleType(t))
      return checker.getTypeArguments(t).forEach((a) => walk(a, where, depth))
    const props = checker.getPropertiesOfType(t)
    if (props.length > 80 || t.getCallSignatures().length) return
    for (const p of props) {
      if (snake.test(p.name) && !seen.has(`${where} .${p.name}`)) {
        seen.add(`${where} .${p.name}`)
        handedOut.push(`${where} .${p.name}`)
      }
      const decl = p.valueDeclaration ?? p.declarations?.[0]
      if (decl) walk(checker.getTypeOfSymbolAtLocation(p, decl), where, depth + 1)
    }
  }
  const returned = (sig) => {
    const r = checker.getReturnTypeOfSignature(sig)
    return checker.getAwaitedType(r) ?? r
  }
  const sf = program.getSourceFile(path.join(root, 'src-main/store/session-store.ts'))
  const cls = sf.statements.find((n) => ts.isClassDeclaration(n) && n.name?.text === 'SessionStore')
  for (const m of cls.members) {
    if (!ts.isMethodDeclaration(m) || ts.isPrivateIdentifier(m.name)) continue
    if (m.modifiers?.some((x) => x.kind === ts.SyntaxKind.PrivateKeyword)) continue
    const name = m.name.getText()
    const sig = checker.getSignatureFromDeclaration(m)
    if (!/Repo$/.test(name)) {
      walk(returned(sig), `SessionStore.${name}()`, 0)
      continue
    }
    for (const p of checker.getPropertiesOfType(checker.getReturnTypeOfSignature(sig)))
      for (const s of checker.getTypeOfSymbolAtLocation(p, m).getCallSignatures())
        walk(returned(s), `${name}().${p.name}()`, 0)
  }
}

const show = (title, items) => {
  console.log(`${title}: ${items.length}`)
  if (list) for (const i of items) console.log(`  ${i}`)
}
show('hand-declared row types', rowTypes)
show('casts on .get()/.all() results', casts)
show('snake_case row reads outside store/', reads)
const byDir = {}
for (const r of reads) {
  const d = path.dirname(r.split(':')[0])
  byDir[d] = (byDir[d] ?? 0) + 1
}
console.log('  by folder:', JSON.stringify(byDir))
show('snake_case keys in what the store hands out', handedOut)
