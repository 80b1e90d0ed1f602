/**
 * `bun run pack`: build, then one installable tarball per package in `.packs/`. The manifest in
 * each tarball is the package's own package.json with three changes: `exports`/`main`/`types`
 * point at `dist/` (with `types` conditions), `workspace:` ranges become the sibling's real
 * version, and dev-only fields are dropped. The repository's manifests keep pointing at `src/`,
 * which is what Bun, tsc and the tests read inside the workspace.
 */
import { spawnSync } from "node:child_process"
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"

const root = resolve(import.meta.dir, "..")
export const PACKAGES = ["core", "effect", "ai-sdk", "cli"] as const

type Manifest = Record<string, unknown> & {
  readonly name: string
  readonly version: string
  exports?: Record<string, string>
  dependencies?: Record<string, string>
}

const readManifest = (dir: string): Manifest => JSON.parse(readFileSync(join(dir, "package.json"), "utf8"))

/** `./src/repeat/index.ts` → the built `.js` and `.d.ts` beside each other under dist/. */
const distTarget = (source: string) => {
  const m = /^\.\/src\/(.+)\.ts$/.exec(source)
  if (!m) throw new Error(`export target ${source} is not ./src/*.ts`)
  return { types: `./dist/${m[1]}.d.ts`, default: `./dist/${m[1]}.js` }
}

const versions = new Map(PACKAGES.map((p) => [readManifest(join(root, "packages", p)).name, readManifest(join(root, "packages", p)).version]))

const realRange = (name: string, range: string): string => {
  if (!range.startsWith("workspace:")) return range
  const v = versions.get(name)
  if (v === undefined) throw new Error(`workspace dependency ${name} is not one of ${[...versions.keys()].join(", ")}`)
  return v
}

/** The manifest that goes into the tarball. */
export const publishManifest = (m: Manifest): Record<string, unknown> => {
  const { devDependencies: _dev, scripts: _scripts, main, types, exports, dependencies, ...rest } = m
  const out: Record<string, unknown> = { ...rest }
  if (exports) {
    out.main = distTarget(exports["."] ?? String(main)).default
    out.types = distTarget(exports["."] ?? String(types)).types
    out.exports = Object.fromEntries(Object.entries(exports).map(([k, v]) => [k, distTarget(v)]))
  }
  if (dependencies) out.dependencies = Object.fromEntries(Object.entries(dependencies).map(([k, v]) => [k, realRange(k, v)]))
  return out
}

const packOne = (name: (typeof PACKAGES)[number], outDir: string): string => {
  const dir = join(root, "packages", name)
  const stage = join(outDir, "stage", name)
  rmSync(stage, { recursive: true, force: true })
  mkdirSync(stage, { recursive: true })
  if (!existsSync(join(dir, "dist"))) throw new Error(`${dir}/dist is missing: run bun run build`)
  cpSync(join(dir, "dist"), join(stage, "dist"), { recursive: true })
  cpSync(join(dir, "LICENSE"), join(stage, "LICENSE"))
  cpSync(existsSync(join(dir, "README.md")) ? join(dir, "README.md") : join(root, "README.md"), join(stage, "README.md"))
  writeFileSync(join(stage, "package.json"), JSON.stringify(publishManifest(readManifest(dir)), null, 2) + "\n")
  const r = spawnSync("npm", ["pack", "--silent", "--pack-destination", outDir], { cwd: stage, encoding: "utf8" })
  if (r.status !== 0) throw new Error(`npm pack in ${stage} failed:\n${r.stderr}`)
  return join(outDir, r.stdout.trim().split("\n").pop()!)
}

if (import.meta.main) {
  const build = spawnSync(process.execPath, [join(root, "scripts/build.ts")], { cwd: root, stdio: "inherit" })
  if (build.status !== 0) process.exit(build.status ?? 1)
  const outDir = join(root, ".packs")
  rmSync(outDir, { recursive: true, force: true })
  mkdirSync(outDir, { recursive: true })
  for (const p of PACKAGES) console.log(packOne(p, outDir))
  rmSync(join(outDir, "stage"), { recursive: true, force: true })
}
