/**
 * The CLI as a new user meets it, from outside: `loopguard` as a subprocess against the scripted
 * server, judged by exit status, stdout, stderr and what the server received.
 */
import { textStream, toolCallStream } from "@loopguard/ai-sdk/testing"
import { describe, expect, test } from "bun:test"
import { resolve } from "node:path"
import { cliEnv, scratch } from "./cli-fixture.js"

const ROOT = resolve(import.meta.dir, "..")
const MAIN = resolve(ROOT, "packages/cli/src/main.ts")
const { serve, workdir } = scratch("lg-newcomer-")

/** `bash -c "<loopguard args> | head -1"`: the exit status is loopguard's own (PIPESTATUS), not head's. */
const pipedToHead = async (args: ReadonlyArray<string>) => {
  const quoted = [process.execPath, MAIN, ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(" ")
  const child = Bun.spawn(["bash", "-c", `${quoted} | head -1; exit \${PIPESTATUS[0]}`], { cwd: ROOT, env: cliEnv(), stdin: "ignore", stdout: "pipe", stderr: "pipe" })
  const killer = setTimeout(() => child.kill(), 50_000)
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited])
  clearTimeout(killer)
  return { stdout, stderr, code }
}

describe("a reader of stdout that goes away (| head)", () => {
  test("run --json | head -1: one line, no trace on stderr, exit 141, the run cancelled", async () => {
    const server = await serve([
      // Slow enough that the lines after the first are written after `head` has gone.
      toolCallStream("bash", { command: "echo one" }, { chunkDelayMs: 300 }),
      toolCallStream("bash", { command: "echo two" }, { chunkDelayMs: 300 }),
      toolCallStream("bash", { command: "echo three" }, { chunkDelayMs: 300 }),
      textStream("All done.", { chunkDelayMs: 300 })
    ])
    const r = await pipedToHead(["run", "--base-url", server.baseURL, "--model", server.modelId, "--prompt", "go", "--cwd", workdir(), "--json"])
    expect(r.stdout.trim().split("\n")).toHaveLength(1)
    expect(JSON.parse(r.stdout)).toHaveProperty("type")
    expect(r.stderr).not.toContain("EPIPE")
    expect(r.stderr).not.toMatch(/\bat .*:\d+/)
    expect(r.code).toBe(141)
    // Cancelled where the pipe broke: the later replies were never asked for.
    expect(server.requests.length).toBeLessThan(4)
  }, 60_000)

  test("demo | head -1: no trace, exit 141", async () => {
    const r = await pipedToHead(["demo"])
    expect(r.stdout.trim().split("\n")).toHaveLength(1)
    expect(r.stderr).not.toContain("EPIPE")
    expect(r.stderr).not.toMatch(/\bat .*:\d+/)
    expect(r.code).toBe(141)
  }, 60_000)
})
