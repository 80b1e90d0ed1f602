/**
 * What `demo`, `run` and `chat` print, judged from outside: the CLI is spawned as a user would
 * run it (output piped), against the scripted server over HTTP.
 */
import { describe, expect, test } from "bun:test"
import { cliEnv, liveText, scratch, waitUntil } from "./cli-fixture.js"
import { textStream, toolCallStream, type ScriptedServer } from "@loopguard/ai-sdk/testing"
import { join, resolve } from "node:path"

const ROOT = resolve(import.meta.dir, "..")
const { serve, workdir } = scratch("lg-out-")
const cleanEnv = () => cliEnv(["FORCE_COLOR"])

const cli = async (args: ReadonlyArray<string>, stdin?: string) => {
  const proc = Bun.spawn([process.execPath, "run", "packages/cli/src/main.ts", ...args], {
    cwd: ROOT,
    env: cleanEnv(),
    stdin: stdin !== undefined ? new TextEncoder().encode(stdin) : "ignore",
    stdout: "pipe",
    stderr: "pipe"
  })
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  return { stdout, stderr, code }
}

const ESC = "\u001b["

describe("loopguard demo", () => {
  test("--json is JSON Lines only; every scene's report counts the tokens the server reported", async () => {
    const { stdout, code } = await cli(["demo", "--json"])
    expect(code).toBe(0)
    const lines = stdout.trim().split("\n").map((l) => JSON.parse(l) as { type: string; report?: { reason: string; tokens: { total: number } } })
    const scenes = lines.filter((l) => l.type === "demo.scene").length
    expect(scenes).toBeGreaterThanOrEqual(13)
    const reports = lines.filter((l) => l.type === "report").map((l) => l.report!)
    expect(reports).toHaveLength(scenes)
    const finals = reports.filter((r) => r.reason === "final")
    expect(finals.length).toBeGreaterThan(5)
    for (const r of finals) expect(r.tokens.total).toBeGreaterThan(0)
    expect(lines.at(-1) as unknown).toEqual({ type: "demo.summary", scenes, asExpected: scenes })
  }, 120_000)

  test("piped, the text has no escape codes, banners in plain words and real token counts", async () => {
    const { stdout, code } = await cli(["demo"])
    expect(code).toBe(0)
    expect(stdout).not.toContain(ESC)
    expect(stdout).not.toMatch(/\bREMIND\b|\bclass: /)
    expect(stdout).toContain("loopguard: The reply started repeating itself")
    expect(stdout).toMatch(/\n(\d+) of \1 scenes ended as expected/)
    expect(stdout).not.toMatch(/── done: .* · 0 tokens/)
  }, 120_000)
})

describe("loopguard run", () => {
  const endpoint = (s: ScriptedServer) => ["--base-url", s.baseURL, "--model", s.modelId, "--cwd", workdir(), "--prompt", "Say hi."]

  test("--quiet prints the answer and the exit line, nothing else", async () => {
    const server = await serve([textStream("Hi there.", { reasoning: "A greeting." })])
    const { stdout, code } = await cli(["run", ...endpoint(server), "--quiet"])
    expect(code).toBe(0)
    const lines = stdout.trimEnd().split("\n")
    expect(lines).toHaveLength(2)
    expect(lines[0]).toBe("Hi there.")
    expect(lines[1]).toMatch(/^── done: finished with an answer \(final\) · 1 step · \d+ tokens · price unknown · \d+\.\d s$/)
  }, 30_000)

  test("--json: every line is JSON, the report last", async () => {
    const server = await serve([textStream("Hi there.")])
    const { stdout, code } = await cli(["run", ...endpoint(server), "--json"])
    expect(code).toBe(0)
    const lines = stdout.trim().split("\n").map((l) => JSON.parse(l) as { type: string })
    expect(lines.at(-1)!.type).toBe("report")
    expect(lines.some((l) => l.type === "step.started")).toBe(true)
  }, 30_000)

  test("Ctrl-C while the reply streams: the run ends with its report, exit status 130", async () => {
    const words = Array.from({ length: 300 }, (_, i) => `w${i}`).join(" ")
    const server = await serve([textStream(words, { chunkSize: 5, chunkDelayMs: 30 })])
    const proc = Bun.spawn([process.execPath, "run", "packages/cli/src/main.ts", "run", ...endpoint(server)], { cwd: ROOT, env: cleanEnv(), stdout: "pipe", stderr: "pipe" })
    const out = liveText(proc.stdout)
    await waitUntil(() => out.text.includes("w10 "))
    proc.kill("SIGINT")
    const code = await proc.exited
    await out.done
    expect(code).toBe(130)
    expect(out.text).toContain("── stopped: cancelled")
    expect(out.text).not.toContain("w299")
    await server.requests[0]!.done
    expect(server.requests[0]!.outcome).toBe("client-closed")
  }, 60_000)

  test("--json with --quiet is a usage error naming both", async () => {
    const { stderr, code } = await cli(["run", "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--prompt", "x", "--json", "--quiet"])
    expect(code).toBe(2)
    expect(stderr).toContain("--json and --quiet")
  }, 30_000)
})

describe("loopguard chat from a pipe", () => {
  test("turns and commands as stable text; a try-best pause offers the menu and the typed choice resumes", async () => {
    // Noted at the 3rd failure (the breaker holds the 4th and 5th back), paused at the 6th request.
    const failing = [1, 2, 3, 4, 5, 6].map((i) => toolCallStream("bash", { command: "exit 1" }, { id: `f${i}`, text: "Trying again." }))
    const server = await serve([textStream("Hello."), ...failing, textStream("Changed strategy; done.")])
    const input = ["hello", "/report", "make the build pass", "2", "/quit", ""].join("\n")
    const { stdout, code } = await cli(["chat", "--base-url", server.baseURL, "--model", "gpt-4o", "--cwd", workdir(), "--on-pause", "ask"], input)
    expect(code).toBe(0)
    expect(stdout).not.toContain(ESC)
    expect(stdout).toContain("you> hello\nHello.\n")
    expect(stdout).toContain("this chat: 1 run")
    expect(stdout).toContain("⏸ try-best paused the run")
    expect(stdout).toContain("What now? [1=stop, 2=continue")
    expect(stdout).toContain("→ continue (resume 1 of 2)")
    expect(stdout).toContain("Changed strategy; done.")
    expect(server.requests).toHaveLength(8)
    const resumed = JSON.stringify(server.requests[7]!.body.messages.at(-1))
    expect(resumed).toContain("Drop the approach you were taking")
  }, 60_000)

  test("/retry sends the last message again, after a finished or a stopped turn; /sessions and /config", async () => {
    const seen: Array<{ users: number; last: string }> = []
    const server = await serve((body: { messages: Array<{ role: string; content: unknown }> }) => {
      const users = body.messages.filter((m) => m.role === "user")
      const last = JSON.stringify(users.at(-1)?.content ?? "")
      seen.push({ users: users.length, last })
      if (last.includes("filter me") && seen.filter((x) => x.last.includes("filter me")).length === 1) return textStream("I cannot", { finish: "content_filter" })
      return textStream(last.includes("filter me") ? "Recovered." : "Hi.")
    })
    const dir = workdir()
    const input = ["/retry", "hello", "/retry", "filter me", "/retry", "/sessions", "/config", ""].join("\n")
    const { stdout, code } = await cli(["chat", "--base-url", server.baseURL, "--model", "m", "--cwd", workdir(), "--session-dir", dir, "--max-steps", "7"], input)
    expect(code).toBe(0)
    expect(stdout).toContain("nothing to retry yet")
    expect(stdout).toContain("sending again: hello")
    expect(stdout).toContain("sending again: filter me")
    expect(stdout).toContain("Recovered.")
    // hello, hello again, filter me, filter me again: each a new user turn
    expect(seen.map((x) => x.users)).toEqual([1, 2, 3, 4])
    expect(stdout).toMatch(/SESSION +MESSAGES +STEPS +LAST WRITE/)
    expect(stdout).toMatch(/ chat-\d{8}-\d{6}-[0-9a-f]{4} +8 +4 /)
    expect(stdout).toContain("loop.maxSteps: 7")
    expect(stdout).toContain(`kept in ${dir}/sessions.db`)
  }, 60_000)

  test("the model's escape sequences never reach the terminal; /export leaves the API key out", async () => {
    const key = "sk-test-Zq8mW2xR7vT4pL9n"
    const server = await serve([textStream(`Cleared\u001b[2J\u001b]0;owned\u0007 the screen. The key is ${key}.`, { reasoning: "\u001b[31mred\u001b[0m" })])
    const file = join(workdir(), "t.jsonl")
    const proc = Bun.spawn([process.execPath, "run", "packages/cli/src/main.ts", "chat", "--base-url", server.baseURL, "--model", "m", "--cwd", workdir(), "--api-key-env", "LG_TEST_KEY"], {
      cwd: ROOT,
      env: { ...cleanEnv(), LG_TEST_KEY: key },
      stdin: new TextEncoder().encode(`hi\n/export ${file}\n`),
      stdout: "pipe",
      stderr: "pipe"
    })
    const [stdout, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited])
    expect(code).toBe(0)
    expect(stdout).toContain("Cleared[2J]0;owned the screen. The key is [REDACTED].")
    expect(stdout).not.toContain(key)
    expect(stdout).not.toContain("\u001b")
    expect(stdout).not.toContain("\u0007")
    const trace = await Bun.file(file).text()
    expect(trace).toContain("The key is [REDACTED].")
    expect(trace).not.toContain(key)
    // The key did go where it belongs: the request's Authorization header.
    expect(server.requests[0]!.headers["authorization"]).toBe(`Bearer ${key}`)
  }, 60_000)

  test("SIGTERM during a turn: the turn ends with its report, then the chat, exit status 143", async () => {
    const words = Array.from({ length: 300 }, (_, i) => `w${i}`).join(" ")
    const server = await serve([textStream(words, { chunkSize: 5, chunkDelayMs: 30 })])
    const proc = Bun.spawn([process.execPath, "run", "packages/cli/src/main.ts", "chat", "--base-url", server.baseURL, "--model", "m", "--cwd", workdir()], {
      cwd: ROOT,
      env: cleanEnv(),
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe"
    })
    // stdin stays open: only the signal can end this chat.
    proc.stdin.write("tell me a long story\n")
    proc.stdin.flush()
    const out = liveText(proc.stdout)
    await waitUntil(() => out.text.includes("w10 "))
    proc.kill("SIGTERM")
    const code = await proc.exited
    await out.done
    expect(code).toBe(143)
    expect(out.text).toContain("── stopped: cancelled")
    expect(out.text).not.toContain("w299")
  }, 60_000)

  test("--session without --session-dir, and an unknown session, are usage errors", async () => {
    const a = await cli(["chat", "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--session", "x"], "")
    expect(a.code).toBe(2)
    expect(a.stderr).toContain("--session needs --session-dir")
    const b = await cli(["chat", "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--session", "nope", "--session-dir", workdir()], "")
    expect(b.code).toBe(2)
    expect(b.stderr).toContain("--session nope: no such session")
  }, 30_000)
})
