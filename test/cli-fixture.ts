/**
 * What the CLI suites share: an environment the spawned `loopguard` accepts, and scratch servers
 * and folders that are gone after each test.
 */
import { startScriptedServer, textStream, type Script, type ScriptedResponse, type ScriptedServer } from "@loopguard/ai-sdk/testing"
import { afterEach } from "bun:test"
import { spawnSync } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"

/**
 * This process's environment without `LOOPGUARD_*` (an unknown one is a config error for the CLI) and without `drop`,
 * with a test API key unless `OPENAI_API_KEY` is dropped: a run without a key warns on stderr, which suites reading
 * stderr do not expect.
 */
export const cliEnv = (drop: ReadonlyArray<string> = []): Record<string, string> => {
  const env: Record<string, string> = {}
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("LOOPGUARD_") && !drop.includes(k)) env[k] = v
  if (!drop.includes("OPENAI_API_KEY")) env["OPENAI_API_KEY"] ??= "sk-test-cli-fixture"
  return env
}

/** Scripted servers and temp folders for one suite, closed and removed after each test. */
export const scratch = (prefix: string) => {
  const servers: Array<ScriptedServer> = []
  const dirs: Array<string> = []
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()))
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
  })
  return {
    serve: async (script: Script): Promise<ScriptedServer> => {
      const server = await startScriptedServer(script)
      servers.push(server)
      return server
    },
    workdir: (): string => {
      const d = mkdtempSync(join(tmpdir(), prefix))
      dirs.push(d)
      return d
    }
  }
}

/**
 * A child's output read as it comes, so a test can wait for a line and then signal the child:
 * `text` grows while the child runs, `done` settles when the stream ends.
 */
export const liveText = (stream: ReadableStream<Uint8Array>) => {
  const out = { text: "", done: Promise.resolve() }
  out.done = (async () => {
    const reader = stream.getReader()
    const decoder = new TextDecoder()
    for (let c = await reader.read(); !c.done; c = await reader.read()) out.text += decoder.decode(c.value, { stream: true })
  })()
  return out
}

/** Waits until `ready()` holds, or the deadline passes (the test's assertions then say what was missing). */
export const waitUntil = async (ready: () => boolean, ms = 30_000): Promise<void> => {
  const deadline = Date.now() + ms
  while (!ready() && Date.now() < deadline) await Bun.sleep(50)
}

/** The sessions `loopguard sessions list --json` reads from a store (`--session-dir DIR` or `--store URL`), and its exit status. */
export const listedSessions = (storeFlags: ReadonlyArray<string>): { readonly status: number | null; readonly sessions: Array<{ id: string; steps: number }> } => {
  const r = spawnSync(process.execPath, ["packages/cli/src/main.ts", "sessions", "list", ...storeFlags, "--json"], { cwd: resolve(import.meta.dir, ".."), env: cliEnv(), encoding: "utf8" })
  const lines = r.stdout.trim() === "" ? [] : r.stdout.trim().split("\n")
  return { status: r.status, sessions: lines.map((l) => JSON.parse(l) as { id: string; steps: number }) }
}

/**
 * An upstream script that asks everyone to wait 2 s (HTTP 429, `retry-after-ms`) on its first
 * request and answers "done" after that; `arrivals` holds when each request reached it.
 */
export const busyFirst = (): { readonly arrivals: Array<number>; readonly script: Script } => {
  const arrivals: Array<number> = []
  const busy: ScriptedResponse = { type: "error", status: 429, headers: { "retry-after-ms": "2000" } }
  return {
    arrivals,
    script: (_body, index) => {
      arrivals.push(Date.now())
      return index === 0 ? busy : textStream("done")
    }
  }
}
