/**
 * Installs a pinned agent CLI from npm into a cache folder outside the checkout, once per version.
 * Concurrent test processes share the cache through a lock directory. A failure is returned as a
 * reason (for a visible skip), never thrown.
 */
import { execFile } from "node:child_process"
import { existsSync, mkdirSync, rmSync, statSync } from "node:fs"
import { homedir } from "node:os"
import { join } from "node:path"

export const AGENTS_CACHE = process.env["AGENT_TESTS_CACHE"] ?? join(homedir(), ".cache", "loopguard-agents")

const INSTALL_TIMEOUT_MS = 4 * 60_000
const LOCK_STALE_MS = INSTALL_TIMEOUT_MS + 60_000

export type Installed = { readonly ok: true; readonly dir: string } | { readonly ok: false; readonly reason: string }

const npm = (args: ReadonlyArray<string>, cwd: string): Promise<{ ok: boolean; output: string }> =>
  new Promise((resolve) => {
    execFile("npm", [...args], { cwd, timeout: INSTALL_TIMEOUT_MS, killSignal: "SIGKILL", maxBuffer: 8 * 1024 * 1024 }, (error, stdout, stderr) =>
      resolve({ ok: error === null, output: `${stdout}${stderr}` })
    )
  })

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Takes the install lock (a directory: mkdir is atomic), breaking one left by a dead installer. */
const lock = async (path: string): Promise<() => void> => {
  for (;;) {
    try {
      mkdirSync(path)
      return () => rmSync(path, { recursive: true, force: true })
    } catch {
      const age = (() => {
        try {
          return Date.now() - statSync(path).mtimeMs
        } catch {
          return 0
        }
      })()
      if (age > LOCK_STALE_MS) rmSync(path, { recursive: true, force: true })
      else await pause(1000)
    }
  }
}

/** The cache folder's name for an agent: its pinned packages, so a version bump installs anew. */
export const installKey = (agent: { readonly packages: ReadonlyArray<string> }): string =>
  agent.packages.join("+").replace(/[^A-Za-z0-9.@+-]/g, "_")

const lastLines = (text: string): string => text.trim().split("\n").slice(-3).join(" | ")

/**
 * `npm install --prefix <cache>/<key> <specs>` unless `<key>/done` says it already succeeded. The
 * `done` stamp is written last, so a half-finished install is redone.
 */
export const installFromNpm = async (key: string, specs: ReadonlyArray<string>): Promise<Installed> => {
  const dir = join(AGENTS_CACHE, key)
  const stamp = join(dir, "done")
  if (existsSync(stamp)) return { ok: true, dir }
  mkdirSync(AGENTS_CACHE, { recursive: true })
  const release = await lock(`${dir}.lock`)
  try {
    if (existsSync(stamp)) return { ok: true, dir }
    rmSync(dir, { recursive: true, force: true })
    mkdirSync(dir, { recursive: true })
    // No install scripts: the agents run from their platform packages' binaries directly.
    const args = ["install", "--no-audit", "--no-fund", "--no-save", "--ignore-scripts", "--prefix", dir, ...specs]
    // Asked once more with fresh registry metadata: a dependency published minutes before can be named
    // by another package's range while npm's cached list of versions lacks it (ETARGET). A real failure fails twice.
    let result = await npm(args, dir)
    if (!result.ok) result = await npm([...args, "--prefer-online"], dir)
    if (!result.ok) return { ok: false, reason: `npm install ${specs.join(" ")} failed: ${lastLines(result.output)}` }
    await Bun.write(stamp, `${specs.join(" ")}\n`)
    return { ok: true, dir }
  } finally {
    release()
  }
}
