/**
 * What the `loopguard` command loads before it does anything: the platform's index module
 * re-exports every platform module (its Redis client, WebSocket, cluster and undici modules among
 * them), so importing from it made every command, `loopguard proxy` included, load about 650
 * modules of a Redis client it never uses. The command imports the one module it needs.
 */
import { expect, test } from "bun:test"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"

const root = resolve(import.meta.dir, "..")

/** The module paths a `loopguard` run (from the sources, under Bun) had loaded when it exited. */
const modulesLoadedBy = (args: ReadonlyArray<string>): Array<string> => {
  const dir = mkdtempSync(join(tmpdir(), "lg-startup-"))
  try {
    const out = join(dir, "modules.json")
    const preload = join(dir, "list-modules.ts")
    // Bun lists ES modules in require.cache too (the entry module itself aside).
    writeFileSync(preload, `process.on("exit", () => require("node:fs").writeFileSync(${JSON.stringify(out)}, JSON.stringify(Object.keys(require.cache))))\n`)
    const run = Bun.spawnSync([process.execPath, "--preload", preload, join(root, "packages/cli/src/main.ts"), ...args], { cwd: root, stdout: "pipe", stderr: "pipe" })
    expect(run.exitCode).toBe(0)
    return JSON.parse(readFileSync(out, "utf8")) as Array<string>
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

test("the command loads no Redis, WebSocket or cluster client it does not use", () => {
  const loaded = modulesLoadedBy(["--version"])
  // The listing works: the platform module the command does use is in it.
  expect(loaded.some((m) => m.endsWith("platform-node/dist/NodeServices.js"))).toBe(true)
  expect(loaded.filter((m) => /\/(@redis|redis|ws)\//.test(m) || /platform-node\/dist\/(NodeRedis|NodeWS|NodeClusterHttp|Undici)\.js$/.test(m))).toEqual([])
}, 30_000)
