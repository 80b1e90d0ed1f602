/**
 * What every bench shares: medians of paired ratios, a child process timed with its peak RSS
 * (GNU time's %M), and bundling a TypeScript entry for Node so the same code runs on both runtimes.
 */
import { spawn, spawnSync } from "node:child_process"
import { readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { createRequire } from "node:module"
import { dirname, join, resolve } from "node:path"

export const root = resolve(import.meta.dir, "../../..")
export const cliBundle = join(root, "packages/cli/dist/loopguard.mjs")

export const median = (xs: ReadonlyArray<number>): number => {
  const s = [...xs].sort((a, b) => a - b)
  const m = Math.floor(s.length / 2)
  return s.length === 0 ? NaN : s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}

export const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(0)} MB`

export const verdict = (value: number, target: number): string => (value <= target ? "met" : `NOT met (${((value / target - 1) * 100).toFixed(0)}% over)`)

/** Builds the CLI bundle from the current sources (the figures must be the code's, not a stale build). */
export const buildCliBundle = (): void => {
  const r = spawnSync(process.execPath, [join(root, "scripts/build.ts"), "cli"], { cwd: root, encoding: "utf8" })
  if (r.status !== 0) throw new Error(`building the CLI bundle failed: ${r.stderr}`)
}

/** jsonc-parser's UMD main cannot be bundled; map it onto its ESM build, as scripts/build.ts does for the CLI. */
const jsoncToEsm: Bun.BunPlugin = {
  name: "jsonc-parser-esm",
  setup(build) {
    const fromEffect = createRequire(join(root, "packages/effect/package.json"))
    const esm = join(dirname(fromEffect.resolve("jsonc-parser/package.json")), "lib/esm/main.js")
    build.onResolve({ filter: /^jsonc-parser$/ }, () => ({ path: esm }))
  }
}

/** One TypeScript/JS entry bundled for Node (ESM, every dependency inside), as the CLI is. */
export const bundleForNode = async (entry: string, outdir: string, name: string): Promise<string> => {
  const result = await Bun.build({ entrypoints: [entry], outdir, naming: { entry: name }, target: "node", format: "esm", conditions: ["bun"], plugins: [jsoncToEsm] })
  if (!result.success) throw new Error(result.logs.map(String).join("\n"))
  return join(outdir, name)
}

export interface Timed {
  readonly ms: number
  /** Peak resident set size of the child, in bytes (GNU time's maximum RSS). */
  readonly peakRss: number
  /** CPU time of the child (user + system), in ms: less sensitive than wall time to a loaded machine. */
  readonly cpuMs: number
  readonly stdout: string
}

/**
 * Runs `cmd args` under /usr/bin/time, feeding `stdinFile` (or nothing), and fails loudly on a
 * non-zero exit unless `okStatus` allows it. Wall time is measured here, around the whole process.
 */
export const timedChild = (
  cmd: string,
  args: ReadonlyArray<string>,
  options: { readonly stdinFile?: string; readonly env?: Record<string, string>; readonly okStatus?: ReadonlyArray<number> } = {}
): Promise<Timed> =>
  new Promise((done, fail) => {
    const rssFile = join(tmpdir(), `loopguard-bench-rss-${process.pid}-${Math.random().toString(36).slice(2)}`)
    const start = performance.now()
    const child = spawn("/usr/bin/time", ["-f", "%M %U %S", "-o", rssFile, cmd, ...args], {
      stdio: [options.stdinFile === undefined ? "ignore" : "pipe", "pipe", "pipe"],
      env: { ...process.env, ...options.env }
    })
    if (options.stdinFile !== undefined) {
      const { createReadStream } = require("node:fs") as typeof import("node:fs")
      createReadStream(options.stdinFile).pipe(child.stdin!)
      child.stdin!.on("error", () => {})
    }
    const out: Array<Buffer> = []
    const err: Array<Buffer> = []
    child.stdout!.on("data", (b: Buffer) => out.push(b))
    child.stderr!.on("data", (b: Buffer) => err.push(b))
    child.on("error", fail)
    child.on("close", (code) => {
      const ms = performance.now() - start
      let kb = NaN
      let cpuMs = NaN
      try {
        const [rss, user, sys] = (readFileSync(rssFile, "utf8").trim().split("\n").at(-1) ?? "").split(" ").map(Number)
        kb = rss ?? NaN
        cpuMs = ((user ?? NaN) + (sys ?? NaN)) * 1000
      } finally {
        rmSync(rssFile, { force: true })
      }
      if (code !== 0 && !(options.okStatus ?? []).includes(code ?? -1)) {
        fail(new Error(`${cmd} ${args.join(" ")} exited ${code}: ${Buffer.concat(err).toString().slice(-2000)}`))
        return
      }
      done({ ms, peakRss: kb * 1024, cpuMs, stdout: Buffer.concat(out).toString() })
    })
  })

/** Node's version, for the figures (the machine's Node may differ from the packages' target). */
export const nodeVersion = (): string => spawnSync("node", ["--version"], { encoding: "utf8" }).stdout.trim()

export const quick = (): boolean => process.argv.includes("--quick")
