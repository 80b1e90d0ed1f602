/**
 * `bun run build`: every library package's `dist/` (ESM JavaScript, `.d.ts`, source maps) with
 * tsc, then the CLI: `packages/cli/dist/loopguard.mjs` (the bin, a node shebang; it runs on Node >= 22
 * and on Bun) starts `dist/node/loopguard.mjs` under Node (one ES module bundle, every dependency
 * inside; what only a dynamic import reaches is split into `dist/node/chunks/`) and, under Bun, the
 * same program prebuilt to bytecode in `dist/bun/`.
 */
import { spawnSync } from "node:child_process"
import { chmodSync, existsSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join, resolve } from "node:path"

const root = resolve(import.meta.dir, "..")
export const LIBRARIES = ["core", "effect", "ai-sdk", "proxy"] as const

const run = (cmd: string, args: ReadonlyArray<string>) => {
  const r = spawnSync(cmd, args, { cwd: root, stdio: "inherit" })
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} exited with ${r.status}`)
}

/** tsc -b skips a project whose build info says "up to date" even when dist/ is gone: start clean. */
const cleanLibraries = () => {
  for (const name of LIBRARIES) {
    rmSync(join(root, "packages", name, "dist"), { recursive: true, force: true })
    rmSync(join(root, ".tsbuild", `dist-${name}.tsbuildinfo`), { force: true })
  }
}

const buildLibraries = () => {
  cleanLibraries()
  run(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-b", ...LIBRARIES.map((n) => `packages/${n}/tsconfig.build.json`)])
}

/**
 * jsonc-parser's `main` is a UMD file whose requires a bundler cannot follow; its ESM build is
 * not reachable through a Node-valid specifier, so the bundle maps the package root onto it.
 */
const jsoncToEsm: Bun.BunPlugin = {
  name: "jsonc-parser-esm",
  setup(build) {
    const fromEffect = createRequire(join(root, "packages/effect/package.json"))
    const esm = join(dirname(fromEffect.resolve("jsonc-parser/package.json")), "lib/esm/main.js")
    build.onResolve({ filter: /^jsonc-parser$/ }, () => ({ path: esm }))
  }
}

/**
 * Effect's `ConfigProvider.fromEnv` reads `import.meta?.env` (set by some bundlers for browsers), which
 * a CommonJS file cannot hold. Bun and Node have no such object, so the Bun build leaves it out; the
 * build fails if the line moved, rather than shipping a bundle that cannot load.
 */
const noImportMetaEnv: Bun.BunPlugin = {
  name: "effect-config-provider-cjs",
  setup(build) {
    build.onLoad({ filter: /[\\/]effect[\\/]dist[\\/]ConfigProvider\.js$/ }, async ({ path }) => {
      const source = await Bun.file(path).text()
      const spread = "...import.meta?.env"
      if (!source.includes(spread)) throw new Error(`${path}: expected \`${spread}\` (the Bun build removes it); update scripts/build.ts`)
      return { contents: source.replace(spread, ""), loader: "js" }
    })
  }
}

/**
 * `@loopguard/ai-sdk/agent` as one ES module: an AI SDK app loads it at every start, and the ~100
 * small core modules it reaches cost more to resolve and read one by one than their code costs to
 * parse (test/bench/agent-entry.ts). Only `ai` stays outside (the app's own copy). The declaration
 * files tsc wrote beside it stay as they are.
 */
const bundleAgentEntry = async (): Promise<void> => {
  const outdir = join(root, "packages/ai-sdk/dist/agent")
  const result = await Bun.build({
    entrypoints: [join(root, "packages/ai-sdk/src/agent/index.ts")],
    outdir,
    naming: { entry: "index.js" },
    target: "node",
    format: "esm",
    conditions: ["bun"],
    external: ["ai"],
    sourcemap: "none"
  })
  if (!result.success) bundleFailed("the agent entry bundle", result)
  rmSync(join(outdir, "index.js.map"), { force: true })
}

const cliEntry = join(root, "packages/cli/src/main.ts")
const bundleFailed = (what: string, result: Bun.BuildOutput): never => {
  for (const log of result.logs) console.error(log)
  throw new Error(`${what} failed`)
}

/** The ES module bundle that Node runs. */
const buildNodeBundle = async (outdir: string) => {
  const result = await Bun.build({
    entrypoints: [cliEntry],
    outdir,
    naming: { entry: "loopguard.mjs", chunk: "chunks/[name]-[hash].mjs" },
    target: "node",
    format: "esm",
    // The workspace's own packages resolve to their TypeScript sources (the "bun" condition of their
    // exports), so the bundle never depends on a stale dist/.
    conditions: ["bun"],
    // Dynamic imports (the Postgres client, the OIDC token helper) become chunks in chunks/, so
    // `run` does not parse them at start-up: −3 MB RSS and 10–15 ms under Bun, paired runs.
    splitting: true,
    // No map for the bundle: it would be four times the bundle's size in every install.
    sourcemap: "none",
    // Whitespace and syntax only (names kept): a smaller file parses faster at every start-up.
    minify: { whitespace: true, syntax: true },
    plugins: [jsoncToEsm]
  })
  if (!result.success) bundleFailed("CLI bundle (node)", result)
}

/**
 * The same program for Bun, compiled to JavaScriptCore bytecode (`loopguard.cjs` + `.jsc`): Bun
 * skips parsing the bundle at every start (about 60 ms of the 140 ms a short `run` took). Bun's
 * bytecode needs CommonJS. A Bun that cannot use the cache parses `loopguard.cjs` as plain source.
 */
const buildBunBundle = async (outdir: string) => {
  const result = await Bun.build({
    entrypoints: [cliEntry],
    outdir,
    naming: { entry: "loopguard.cjs" },
    target: "bun",
    format: "cjs",
    bytecode: true,
    conditions: ["bun"],
    sourcemap: "none",
    minify: { whitespace: true, syntax: true },
    plugins: [jsoncToEsm, noImportMetaEnv]
  })
  if (!result.success) bundleFailed("CLI bundle (bun bytecode)", result)
  if (!existsSync(join(outdir, "loopguard.cjs.jsc"))) throw new Error("the Bun build wrote no bytecode (loopguard.cjs.jsc)")
}

/** The bin: picks the build for the runtime it is started with. */
const TRAMPOLINE = `#!/usr/bin/env node
// The loopguard command. Bun runs the program prebuilt to bytecode (bun/loopguard.cjs), which spares
// it parsing the bundle at every start; Node runs the ES module bundle (node/loopguard.mjs).
import { createRequire } from "node:module"
if (process.versions.bun !== undefined) createRequire(import.meta.url)("./bun/loopguard.cjs")
else await import("./node/loopguard.mjs")
`

const buildCli = async () => {
  const outdir = join(root, "packages/cli/dist")
  rmSync(outdir, { recursive: true, force: true })
  await buildNodeBundle(join(outdir, "node"))
  await buildBunBundle(join(outdir, "bun"))
  const bin = join(outdir, "loopguard.mjs")
  writeFileSync(bin, TRAMPOLINE)
  chmodSync(bin, 0o755)
}

if (import.meta.main) {
  // `bun scripts/build.ts cli`: the bundle alone (the start-up bench rebuilds it).
  // `bun scripts/build.ts agent-entry`: the agent entry's bundle alone, over a dist/ tsc already wrote (its bench).
  if (process.argv[2] === "agent-entry") {
    await bundleAgentEntry()
    process.exit(0)
  }
  if (process.argv[2] !== "cli") buildLibraries()
  if (process.argv[2] !== "cli") await bundleAgentEntry()
  await buildCli()
  console.log(process.argv[2] === "cli" ? "built: packages/cli/dist/loopguard.mjs" : "built: packages/{core,effect,ai-sdk,proxy}/dist, packages/cli/dist/loopguard.mjs")
}
