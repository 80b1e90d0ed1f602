/**
 * The shape of the code, measured from its own imports and definitions so it stays true:
 * no file imports itself back through other files; the run's state is written only by the run
 * loop's interpreter; no function in the run loop or the processor is longer than 60 lines.
 */
import { describe, expect, test } from "bun:test"
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, relative, resolve } from "node:path"
import * as ts from "typescript"

const root = resolve(import.meta.dir, "..")

const sourcesUnder = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return name === "node_modules" ? [] : sourcesUnder(path)
    return path.endsWith(".ts") && !path.endsWith(".test.ts") && !path.endsWith(".d.ts") ? [path] : []
  })

const parse = (file: string): ts.SourceFile => ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true)

/** `@loopguard/<pkg>/<entry>` as the workspace resolves it under bun (each package's `exports`). */
const packageEntry = (specifier: string): string | null => {
  const [, pkg, ...rest] = specifier.split("/")
  const manifest = join(root, "packages", pkg ?? "", "package.json")
  if (!existsSync(manifest)) return null
  const exports = JSON.parse(readFileSync(manifest, "utf8")).exports ?? {}
  const entry = exports[rest.length === 0 ? "." : `./${rest.join("/")}`]
  return typeof entry?.bun === "string" ? join(dirname(manifest), entry.bun) : null
}

const resolveImport = (from: string, specifier: string): string | null => {
  if (specifier.startsWith("@loopguard/")) return packageEntry(specifier)
  if (!specifier.startsWith(".")) return null
  const base = resolve(dirname(from), specifier.replace(/\.js$/, ""))
  return [`${base}.ts`, join(base, "index.ts")].find(existsSync) ?? null
}

/** Every import and re-export of a file, type-only ones included (a cycle of types is still a cycle of files). */
const importsOf = (file: string): Array<string> =>
  parse(file).statements.flatMap((s) => {
    const spec = (ts.isImportDeclaration(s) || ts.isExportDeclaration(s)) && s.moduleSpecifier && ts.isStringLiteral(s.moduleSpecifier) ? s.moduleSpecifier.text : null
    const target = spec === null ? null : resolveImport(file, spec)
    return target === null ? [] : [target]
  })

/** Strongly connected groups of more than one file (Tarjan). */
const cyclesOf = (graph: ReadonlyMap<string, ReadonlyArray<string>>): Array<Array<string>> => {
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: Array<string> = []
  const cycles: Array<Array<string>> = []
  const visit = (v: string): void => {
    index.set(v, index.size)
    low.set(v, index.get(v)!)
    stack.push(v)
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v)!, low.get(w)!))
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!))
    }
    if (low.get(v) !== index.get(v)) return
    const group: Array<string> = []
    for (let w = stack.pop(); w !== undefined; w = w === v ? undefined : stack.pop()) group.push(w)
    if (group.length > 1) cycles.push(group.map((f) => relative(root, f)).sort())
  }
  for (const v of graph.keys()) if (!index.has(v)) visit(v)
  return cycles
}

const runLoopFiles = () => sourcesUnder(join(root, "packages/effect/src/runloop"))
const processorFiles = () => sourcesUnder(join(root, "packages/effect/src/processor"))

const nodesOf = (sf: ts.SourceFile): Array<ts.Node> => {
  const all: Array<ts.Node> = []
  const visit = (n: ts.Node) => {
    all.push(n)
    ts.forEachChild(n, visit)
  }
  visit(sf)
  return all
}

/** The identifier a property chain (`ctx.state.meter`) starts from. */
const rootOf = (e: ts.Expression): string | null => {
  let at: ts.Expression = e
  while (ts.isPropertyAccessExpression(at) || ts.isElementAccessExpression(at) || ts.isParenthesizedExpression(at)) at = at.expression
  return ts.isIdentifier(at) ? at.text : null
}

const ASSIGNMENTS = new Set([ts.SyntaxKind.EqualsToken, ts.SyntaxKind.PlusEqualsToken, ts.SyntaxKind.MinusEqualsToken, ts.SyntaxKind.AsteriskEqualsToken, ts.SyntaxKind.BarBarEqualsToken, ts.SyntaxKind.QuestionQuestionEqualsToken])
const MUTATORS = new Set(["push", "pop", "shift", "unshift", "splice", "sort", "reverse", "fill", "set", "delete", "clear"])

/** Writes into a value reached from `ctx` (assignment, ++/--, a mutating array or map call), as `file:line text`. */
const contextWrites = (file: string): Array<string> => {
  const sf = parse(file)
  const at = (n: ts.Node) => `${relative(root, file)}:${sf.getLineAndCharacterOfPosition(n.getStart()).line + 1} ${n.getText().slice(0, 60)}`
  return nodesOf(sf).flatMap((n) => {
    if (ts.isBinaryExpression(n) && ASSIGNMENTS.has(n.operatorToken.kind) && !ts.isIdentifier(n.left) && rootOf(n.left) === "ctx") return [at(n)]
    if ((ts.isPrefixUnaryExpression(n) || ts.isPostfixUnaryExpression(n)) && [ts.SyntaxKind.PlusPlusToken, ts.SyntaxKind.MinusMinusToken].includes(n.operator) && rootOf(n.operand) === "ctx") return [at(n)]
    if (ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression) && MUTATORS.has(n.expression.name.text) && ts.isPropertyAccessExpression(n.expression.expression) && rootOf(n.expression.expression) === "ctx") return [at(n)]
    return []
  })
}

/** Functions (declarations, arrows, methods, generator bodies) longer than `max` lines, as `file:line (n lines)`. */
const longFunctions = (file: string, max: number): Array<string> => {
  const sf = parse(file)
  return nodesOf(sf).flatMap((n) => {
    if (!ts.isFunctionLike(n) || !("body" in n) || n.body === undefined) return []
    const first = sf.getLineAndCharacterOfPosition(n.getStart()).line
    const lines = sf.getLineAndCharacterOfPosition(n.end).line - first + 1
    return lines > max ? [`${relative(root, file)}:${first + 1} (${lines} lines)`] : []
  })
}

describe("the code's structure", () => {
  test("the run's state is written only by the interpreter, and RunContext has no other mutable field", () => {
    const outside = runLoopFiles().filter((f) => !f.endsWith("/interpret.ts"))
    expect(outside.flatMap(contextWrites)).toEqual([])
    const context = parse(join(root, "packages/effect/src/runloop/run-context.ts"))
    const declared = context.statements.find((s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === "RunContext")
    const mutable = (declared?.members ?? []).filter((m) => ts.isPropertySignature(m) && !m.modifiers?.some((x) => x.kind === ts.SyntaxKind.ReadonlyKeyword))
    expect(mutable.map((m) => m.name?.getText())).toEqual(["state"])
    // The processor gets callbacks, never the run's context.
    expect(processorFiles().filter((f) => readFileSync(f, "utf8").includes("run-context"))).toEqual([])
  })

  test("the checks see what they look for", () => {
    const dir = mkdtempSync(join(tmpdir(), "loopguard-structure-"))
    try {
      const probe = join(dir, "probe.ts")
      const body = Array.from({ length: 60 }, (_, i) => `  const v${i} = ${i}`).join("\n")
      writeFileSync(probe, ["const f = (ctx: any) => {", "  ctx.state = 1", "  ctx.step += 1", "  ctx.count++", "  ctx.incidents.push(2)", "  const ok = ctx.state.step", "}", `function long() {\n${body}\n}`].join("\n"))
      expect(contextWrites(probe).map((w) => w.split(" ")[0]!.split(":").at(-1))).toEqual(["2", "3", "4", "5"])
      expect(longFunctions(probe, 60)).toEqual([`${relative(root, probe)}:8 (62 lines)`])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test("no function in the run loop or the processor is longer than 60 lines", () => {
    expect([...runLoopFiles(), ...processorFiles()].flatMap((f) => longFunctions(f, 60))).toEqual([])
  })

  test("no file cycle in the core, effect, ai-sdk, proxy and cli packages", () => {
    const files = ["core", "effect", "ai-sdk", "proxy", "cli"].flatMap((p) => sourcesUnder(join(root, "packages", p, "src")))
    const graph = new Map(files.map((f) => [f, importsOf(f)]))
    expect(cyclesOf(graph)).toEqual([])
  })

  test("incidents have one door: only events/incident-door.ts publishes an incident event", () => {
    const publishers = sourcesUnder(join(root, "packages/effect/src")).filter((f) => /type: "incident"/.test(readFileSync(f, "utf8")))
    expect(publishers.map((f) => relative(root, f))).toEqual(["packages/effect/src/events/incident-door.ts"])
  })

  test("the libraries build without Bun's types: no bare Bun global in their code (the proxy reaches it through globalThis)", () => {
    const code = (line: string) => !/^\s*(\*|\/\/|\/\*)/.test(line)
    const uses = ["core", "effect", "ai-sdk", "proxy"]
      .flatMap((p) => sourcesUnder(join(root, "packages", p, "src")))
      .filter((f) => !f.endsWith(".fixture.ts"))
      .flatMap((f) => readFileSync(f, "utf8").split("\n").flatMap((line, i) => (code(line) && /(^|[^.\w`'"])Bun\.\w/.test(line) ? [`${relative(root, f)}:${i + 1}`] : [])))
    expect(uses).toEqual([])
  })

  test("the cycle check finds a cycle when there is one", () => {
    expect(cyclesOf(new Map([["a", ["b"]], ["b", ["c"]], ["c", ["a"]], ["d", ["a"]]]))).toEqual([["a", "b", "c"].map((f) => relative(root, f)).sort()])
  })
})
