/**
 * `bun run pack`: build, then one installable tarball per package in `.packs/`. The manifest in
 * each tarball is the package's own package.json with three changes: the `bun` export condition
 * (the TypeScript sources, which Bun, tsc and the bundler read inside the workspace) is dropped so
 * every runtime gets `dist/`, `workspace:` ranges become the sibling's real version, and dev-only
 * fields are dropped.
 */
import { spawnSync } from "node:child_process"
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"

const root = resolve(import.meta.dir, "..")
export const PACKAGES = ["core", "effect", "ai-sdk", "proxy", "cli"] as const

type ExportTarget = Readonly<Record<string, string>>

type Manifest = Record<string, unknown> & {
  readonly name: string
  readonly version: string
  exports?: Record<string, ExportTarget>
  dependencies?: Record<string, string>
}

const readManifest = (dir: string): Manifest => JSON.parse(readFileSync(join(dir, "package.json"), "utf8"))

/** An export without its workspace-only `bun` condition; what is left must point into dist/. */
const publishedTarget = (key: string, target: ExportTarget): ExportTarget => {
  const { bun: _source, ...rest } = target
  for (const [condition, path] of Object.entries(rest)) {
    if (!path.startsWith("./dist/")) throw new Error(`exports["${key}"].${condition} = ${path} is not under ./dist/`)
  }
  if (rest.types === undefined || rest.default === undefined) throw new Error(`exports["${key}"] needs types and default`)
  return rest
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
  const { devDependencies: _dev, scripts: _scripts, exports, dependencies, ...rest } = m
  const out: Record<string, unknown> = { ...rest }
  if (exports) out.exports = Object.fromEntries(Object.entries(exports).map(([k, v]) => [k, publishedTarget(k, v)]))
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
