/**
 * The public surface from the packages' own `exports` maps: one name means one thing across every
 * entry point, no export shadows a module of `effect`, and every exported function, class and
 * service carries a doc comment.
 */
import { describe, expect, test } from "bun:test"
import { readdirSync, readFileSync } from "node:fs"
import { join, resolve } from "node:path"
import * as ts from "typescript"

const root = resolve(import.meta.dir, "..")
const PACKAGES = ["core", "effect", "ai-sdk", "proxy"] as const

const entries = PACKAGES.flatMap((pkg) => {
  const manifest = JSON.parse(readFileSync(join(root, "packages", pkg, "package.json"), "utf8")) as {
    exports: Record<string, unknown>
  }
  return Object.entries(manifest.exports).map(([key, target]) => {
    const spec = `@loopguard/${pkg}${key === "." ? "" : key.slice(1)}`
    // Every entry: `bun` (the TypeScript source, read inside the workspace), `types` and `default` (dist/).
    const t = target as { bun?: unknown; types?: unknown; default?: unknown }
    if (typeof t.bun !== "string" || typeof t.types !== "string" || typeof t.default !== "string") {
      throw new Error(`${spec}: exports["${key}"] needs { "bun": "./src/….ts", "types": "./dist/….d.ts", "default": "./dist/….js" }`)
    }
    const stem = t.bun.replace(/^\.\/src\//, "").replace(/\.ts$/, "")
    if (t.types !== `./dist/${stem}.d.ts` || t.default !== `./dist/${stem}.js`) throw new Error(`${spec}: types/default do not match ${t.bun}`)
    return { spec, file: resolve(root, "packages", pkg, t.bun) }
  })
})

const program = ts.createProgram(
  entries.map((e) => e.file),
  { module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler, customConditions: ["bun"], target: ts.ScriptTarget.ES2022, skipLibCheck: true, types: [] }
)
const checker = program.getTypeChecker()

interface Exported {
  readonly spec: string
  readonly name: string
  readonly declaration: ts.Declaration | undefined
}

const exported: ReadonlyArray<Exported> = entries.flatMap(({ spec, file }) => {
  const source = program.getSourceFile(file)
  const module = source && checker.getSymbolAtLocation(source)
  if (!module) throw new Error(`${spec}: ${file} is not a module`)
  return checker.getExportsOfModule(module).map((symbol) => {
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol
    return { spec, name: symbol.name, declaration: target.declarations?.[0] }
  })
})

const where = (d: ts.Declaration | undefined) =>
  d ? `${d.getSourceFile().fileName.slice(root.length + 1)}:${d.getSourceFile().getLineAndCharacterOfPosition(d.getStart()).line + 1}` : "?"

/** Top-level modules of `effect` and its subpath packages (Config, Stream, Chunk, LanguageModel…). */
const effectModules = (() => {
  const src = join(root, "node_modules/effect/src")
  const names = new Set<string>()
  const walk = (dir: string, depth: number) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory() && depth === 0 && entry.name !== "internal") walk(join(dir, entry.name), 1)
      else if (entry.isFile() && entry.name.endsWith(".ts") && entry.name !== "index.ts") names.add(entry.name.slice(0, -3))
    }
  }
  walk(src, 0)
  return names
})()

describe("public API", () => {
  test("every entry point exports something", () => {
    for (const { spec } of entries) expect(exported.filter((e) => e.spec === spec).length, spec).toBeGreaterThan(0)
  })

  test("one name means one thing across all entry points", () => {
    const byName = new Map<string, Set<string>>()
    for (const e of exported) byName.set(e.name, (byName.get(e.name) ?? new Set()).add(where(e.declaration)))
    const twoThings = [...byName].filter(([, places]) => places.size > 1).map(([name, places]) => `${name}: ${[...places].join(", ")}`)
    expect(twoThings).toEqual([])
  })

  test("@loopguard/ai-sdk's root exports what users call, not the Layers' internals", () => {
    // The stream/message mapping and the HTTP response limits stay importable by file inside the
    // workspace; a user builds on the Layers, the middleware and their option types.
    const root = exported.filter((e) => e.spec === "@loopguard/ai-sdk").map((e) => e.name).sort()
    expect(root).toEqual([
      "AiSdkModelOptions",
      "EndpointOptions",
      "LoopguardMiddlewareOptions",
      "LoopguardMiddlewareOptionsError",
      "LoopguardTrip",
      "LoopguardTripEvent",
      "TripIds",
      "layerFromModel",
      "layerOpenAI",
      "layerOpenAICompatible",
      "layerOpenAICompatibleFromEnv",
      "loopguardMiddleware",
      "makeAiSdkLlm"
    ])
  })

  test("no export shadows a module of effect", () => {
    expect(effectModules.has("Config")).toBe(true) // the list is real
    // Message (effect/cluster) and Model (effect/ai, effect/schema) are not in `effect`'s main entry.
    const allowed = new Set(["Message", "Model"])
    const shadowing = [...new Set(exported.map((e) => e.name))].filter((n) => effectModules.has(n) && !allowed.has(n))
    expect(shadowing).toEqual([])
  })

  test("every exported function, class and service has a doc comment", () => {
    const undocumented = exported
      .filter(({ declaration: d }) => {
        if (!d) return false
        const isCallable =
          ts.isFunctionDeclaration(d) ||
          ts.isClassDeclaration(d) ||
          (ts.isVariableDeclaration(d) && d.initializer !== undefined && (ts.isArrowFunction(d.initializer) || ts.isFunctionExpression(d.initializer)))
        if (!isCallable) return false
        const statement = ts.isVariableDeclaration(d) ? d.parent.parent : d
        return ts.getJSDocCommentsAndTags(statement).length === 0
      })
      .map((e) => `${e.spec} ${e.name} (${where(e.declaration)})`)
    expect(undocumented).toEqual([])
  })
})
