/**
 * The CLI as a new user meets it, from outside: `loopguard` as a subprocess against the scripted
 * server, judged by exit status, stdout, stderr and what the server received.
 */
import { textStream, toolCallStream } from "@loopguard/ai-sdk/testing"
import { describe, expect, test } from "bun:test"
import { resolve } from "node:path"
import { cliEnv, liveText, scratch, waitUntil } from "./cli-fixture.js"

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

/** `loopguard` as a subprocess with extra environment; stdout, stderr and exit status. */
const cli = async (args: ReadonlyArray<string>, env: Record<string, string> = {}) => {
  const child = Bun.spawn([process.execPath, MAIN, ...args], { cwd: ROOT, env: { ...cliEnv(), ...env }, stdin: "ignore", stdout: "pipe", stderr: "pipe" })
  const killer = setTimeout(() => child.kill(), 50_000)
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited])
  clearTimeout(killer)
  return { stdout, stderr, code }
}

const jsonLines = (stdout: string): Array<Record<string, unknown>> =>
  stdout.split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l) as Record<string, unknown>)

describe("the retry knob a user sets for a kind of failure governs it in every phase", () => {
  const tooMany = { type: "error", status: 429, headers: { "retry-after-ms": "10" } } as const

  test("retry.rateLimit.maxRetries 1: three request-phase 429s get two requests, not four", async () => {
    const server = await serve([tooMany, tooMany, tooMany, textStream("too late")])
    const r = await cli(["run", "--base-url", server.baseURL, "--model", server.modelId, "--prompt", "go", "--cwd", workdir(), "--json"], {
      LOOPGUARD_RETRY_RATE_LIMIT_MAX_RETRIES: "1"
    })
    expect(server.requests.length).toBe(2)
    const attempts = jsonLines(r.stdout).filter((e) => e["type"] === "session.retry.attempt")
    expect(attempts.map((a) => [a["kind"], a["maxRetries"]])).toEqual([["rate_limit", 1]])
    expect(r.code).toBe(1)
  }, 60_000)

  test("without a rateLimit setting, request-phase 429s keep the request budget (4 retries)", async () => {
    const server = await serve([tooMany, tooMany, tooMany, textStream("answered")])
    const r = await cli(["run", "--base-url", server.baseURL, "--model", server.modelId, "--prompt", "go", "--cwd", workdir(), "--quiet"])
    expect(server.requests.length).toBe(4)
    expect(r.stdout).toContain("answered")
    expect(r.code).toBe(0)
  }, 60_000)

  test("retry.network set: a refused connection is retried as many times as it says, not the request budget's 4", async () => {
    const closed = await serve([])
    const url = closed.baseURL
    await closed.close()
    const r = await cli(["run", "--base-url", url, "--model", "m", "--prompt", "go", "--cwd", workdir(), "--json"], {
      LOOPGUARD_RETRY_NETWORK_MODE: "bounded",
      LOOPGUARD_RETRY_NETWORK_MAX_RETRIES: "6",
      LOOPGUARD_RETRY_NETWORK_INITIAL_DELAY_MS: "10",
      LOOPGUARD_RETRY_NETWORK_MAX_DELAY_MS: "20"
    })
    const attempts = jsonLines(r.stdout).filter((e) => e["type"] === "session.retry.attempt")
    expect(attempts.map((a) => a["kind"])).toEqual(Array(6).fill("network"))
    expect(r.code).toBe(1)
  }, 60_000)
})

describe("an unset API key", () => {
  test("is not sent as `Bearer none`: no Authorization header, and one warning line naming the variable", async () => {
    const server = await serve([textStream("Hello.")])
    const child = Bun.spawn([process.execPath, MAIN, "run", "--base-url", server.baseURL, "--model", server.modelId, "--prompt", "hi", "--cwd", workdir(), "--quiet"], {
      cwd: ROOT,
      env: cliEnv(["OPENAI_API_KEY"]),
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe"
    })
    const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited])
    expect(code).toBe(0)
    expect(stdout).toContain("Hello.")
    expect(server.requests[0]!.headers["authorization"]).toBeUndefined()
    const warnings = stderr.split("\n").filter((l) => l.includes("OPENAI_API_KEY"))
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toContain("not set")
  }, 60_000)

  test("a set key is sent as a bearer token, without the warning", async () => {
    const server = await serve([textStream("Hello.")])
    const r = await cli(["run", "--base-url", server.baseURL, "--model", server.modelId, "--prompt", "hi", "--cwd", workdir(), "--quiet", "--api-key-env", "LG_TEST_KEY"], {
      LG_TEST_KEY: "sk-test-0123456789"
    })
    expect(r.code).toBe(0)
    expect(server.requests[0]!.headers["authorization"]).toBe("Bearer sk-test-0123456789")
    expect(r.stderr).not.toContain("LG_TEST_KEY")
  }, 60_000)
})

describe("audit of an exported session whose turn a person cancelled", () => {
  test("the Ctrl-C replays as a cancel (cancel / stop, exit cancelled), not as the model's failure", async () => {
    const server = await serve([{ type: "stream", chunks: [{ text: "Looking" }, { text: " more" }], stallAfterChunks: 1, stallMs: 60_000 }])
    const dir = workdir()
    const child = Bun.spawn([process.execPath, MAIN, "run", "--base-url", server.baseURL, "--model", server.modelId, "--prompt", "go", "--cwd", dir, "--session-dir", dir], {
      cwd: ROOT,
      env: cliEnv(),
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe"
    })
    // Ctrl-C once the first words are on the screen: the cut reply is stored with what streamed.
    const out = liveText(child.stdout)
    await waitUntil(() => out.text.includes("Looking"))
    child.kill("SIGINT")
    expect(await child.exited).toBe(130)
    const trace = `${dir}/run.jsonl`
    expect((await cli(["sessions", "export", "run", "--session-dir", dir, "--out", trace])).code).toBe(0)
    const r = await cli(["audit", "--json", trace])
    const audited = JSON.parse(r.stdout.trim()) as { incidents: Array<{ detector: string; action: string }>; exit: { reason: string } | null }
    expect(audited.exit?.reason).toBe("cancelled")
    expect(audited.incidents.map((i) => `${i.detector}/${i.action}`)).toEqual(["cancel/stop"])
  }, 60_000)
})

describe("what the package and the help say", () => {
  test("the CLI package description names every command the help lists", async () => {
    const { description } = (await Bun.file(resolve(ROOT, "packages/cli/package.json")).json()) as { description: string }
    const help = await cli(["--help"])
    expect(help.code).toBe(0)
    for (const command of ["demo", "scan", "run", "chat", "audit", "sessions"]) {
      expect(help.stdout).toContain(command)
      expect(description).toMatch(new RegExp(`\\b${command}\\b`))
    }
  }, 60_000)

  test("--session help names both stores, on chat and on run", async () => {
    for (const command of ["chat", "run"]) {
      const help = await cli([command, "--help"])
      const line = help.stdout.split("\n").findIndex((l) => l.includes("--session ") || l.trimEnd().endsWith("--session"))
      const text = help.stdout.split("\n").slice(line, line + 4).join(" ")
      expect([command, text]).toEqual([command, expect.stringContaining("--store")])
      expect(text).toContain("--session-dir")
    }
  }, 60_000)
})

describe("the report says what happened to the workspace and to each call", () => {
  const reportOf = (stdout: string) => jsonLines(stdout).find((e) => e["type"] === "report")!["report"] as { completed: Array<string>; savedAt: string }

  test("a shell command that wrote a file: the report names the file, not 'no file changed'", async () => {
    const server = await serve([toolCallStream("bash", { command: "echo hi >> marker.txt" }), textStream("Wrote the marker.")])
    const cwd = workdir()
    const r = await cli(["run", "--base-url", server.baseURL, "--model", server.modelId, "--prompt", "mark it", "--cwd", cwd, "--json"])
    expect(r.code).toBe(0)
    expect(await Bun.file(`${cwd}/marker.txt`).text()).toBe("hi\n")
    const report = reportOf(r.stdout)
    expect(report.savedAt).toContain("changed: marker.txt")
    expect(report.savedAt).not.toContain("no file changed")
  }, 60_000)

  test("a shell command that wrote a file and then failed: the report names the file as maybe written, not 'no file changed'", async () => {
    const server = await serve([toolCallStream("bash", { command: "echo hi > half.txt; false" }), textStream("The command failed.")])
    const cwd = workdir()
    const r = await cli(["run", "--base-url", server.baseURL, "--model", server.modelId, "--prompt", "try it", "--cwd", cwd, "--json"])
    expect(await Bun.file(`${cwd}/half.txt`).text()).toBe("hi\n")
    const report = reportOf(r.stdout)
    expect(report.savedAt).toContain("maybe written by commands that failed: half.txt")
    expect(report.savedAt).not.toContain("no file changed")
  }, 60_000)

  test("a call that was refused never ran: 'not run … (why)', not 'ran … (did not finish)'", async () => {
    const server = await serve([toolCallStream("bash", { command: "echo hi >> marker.txt" }), textStream("I could not write it.")])
    const cwd = workdir()
    // --approve-commands without a terminal: every command is refused, unrun.
    const r = await cli(["run", "--base-url", server.baseURL, "--model", server.modelId, "--prompt", "mark it", "--cwd", cwd, "--json", "--approve-commands"])
    expect(await Bun.file(`${cwd}/marker.txt`).exists()).toBe(false)
    const report = reportOf(r.stdout)
    expect(report.completed.join("\n")).not.toContain("did not finish")
    expect(report.completed).toContainEqual(expect.stringMatching(/^not run `echo hi >> marker\.txt` \(command approval is on/))
    expect(report.savedAt).toContain("no file changed")
  }, 60_000)
})

describe("errors in words for people", () => {
  test("a refused key: the banner and the report say to check the key, the report carries uiMessage", async () => {
    const refused = { type: "error", status: 401, body: { error: { message: "Incorrect API key provided: sk-te****", type: "invalid_request_error", code: "invalid_api_key" } } } as const
    const server = await serve([refused])
    const human = await cli(["run", "--base-url", server.baseURL, "--model", server.modelId, "--prompt", "hi", "--cwd", workdir()], { OPENAI_API_KEY: "sk-test-wrong-key" })
    expect(human.code).toBe(1)
    expect(human.stdout).toContain("The endpoint refused the credentials (HTTP 401): check the API key")
    expect(human.stdout).toContain("in short: The endpoint refused the credentials")
    const server2 = await serve([refused])
    const json = await cli(["run", "--base-url", server2.baseURL, "--model", server2.modelId, "--prompt", "hi", "--cwd", workdir(), "--json"], { OPENAI_API_KEY: "sk-test-wrong-key" })
    const report = jsonLines(json.stdout).find((e) => e["type"] === "report")!["report"] as { error: { uiMessage?: string } }
    expect(report.error.uiMessage).toContain("check the API key")
  }, 60_000)
})

describe("a context overflow early in a run", () => {
  const overflow = { type: "error", status: 400, body: { error: { message: "This model's maximum context length is 8192 tokens. However, your messages resulted in 9100 tokens.", type: "invalid_request_error", code: "context_length_exceeded" } } } as const
  const bigLog = Array.from({ length: 600 }, (_, i) => `log line ${i}: compiling module ${i}`).join("\n")

  test("at the 3rd request: old tool outputs are shortened and the step is taken again, the run finishes", async () => {
    const server = await serve([
      toolCallStream("bash", { command: `printf '${bigLog.replaceAll("\n", "\\n")}'` }, { id: "c1" }),
      toolCallStream("bash", { command: "echo second" }, { id: "c2" }),
      overflow,
      textStream("Built after all.")
    ])
    const r = await cli(["run", "--base-url", server.baseURL, "--model", server.modelId, "--prompt", "build", "--cwd", workdir(), "--json"])
    expect(r.code).toBe(0)
    expect(server.requests).toHaveLength(4)
    const toolText = (i: number) => JSON.stringify((server.requests[i]!.body as { messages: Array<{ role: string; content: unknown }> }).messages.filter((m) => m.role === "tool"))
    expect(toolText(2)).toContain("log line 599")
    expect(toolText(3)).toContain("characters of this earlier tool output left out to fit the context window")
    expect(toolText(3).length).toBeLessThan(toolText(2).length)
    const incidents = jsonLines(r.stdout).filter((e) => e["type"] === "incident").map((e) => `${e["detector"]}/${e["action"]}`)
    expect(incidents).toContain("compaction/shrunk-outputs")
  }, 60_000)

  test("when nothing more can be shrunk, the report says it is the context, not the credentials", async () => {
    const server = await serve([toolCallStream("bash", { command: "echo one" }), overflow, overflow, overflow, overflow, overflow, overflow])
    const r = await cli(["run", "--base-url", server.baseURL, "--model", server.modelId, "--prompt", "build", "--cwd", workdir(), "--json"])
    expect(r.code).toBe(1)
    const report = jsonLines(r.stdout).find((e) => e["type"] === "report")!["report"] as { reason: string; suggestedNextStep: string; error: { uiMessage?: string } }
    expect(report.reason).toBe("model_error")
    expect(report.suggestedNextStep).toContain("no longer fits the model's context window")
    expect(report.suggestedNextStep).not.toContain("credentials")
    expect(report.error.uiMessage).toBe("The conversation no longer fits the model's context window.")
  }, 60_000)
})

describe("a sub-agent's steps count against the parent's --max-steps", () => {
  test("--max-steps 5: the parent's 1 step and the child's 3 leave it one more step, then max_steps", async () => {
    const server = await serve([
      toolCallStream("task", { description: "look", prompt: "List src and say what is in it." }, { id: "p0" }),
      toolCallStream("bash", { command: "ls" }, { id: "c0" }),
      toolCallStream("bash", { command: "ls src" }, { id: "c1" }),
      textStream("src holds a.ts."),
      toolCallStream("bash", { command: "echo parent one" }, { id: "p1" }),
      toolCallStream("bash", { command: "echo parent two" }, { id: "p2" }),
      textStream("Parent done.")
    ])
    const r = await cli(["run", "--base-url", server.baseURL, "--model", server.modelId, "--prompt", "summarise", "--cwd", workdir(), "--json", "--max-steps", "5"], {
      LOOPGUARD_SUBAGENTS_ENABLED: "true",
      LOOPGUARD_SUBAGENTS_SHARE_OF_REMAINING: "1"
    })
    const report = jsonLines(r.stdout).find((e) => e["type"] === "report")!["report"] as { reason: string; stepsUsed: number; subagents: Array<{ stepsUsed: number }> }
    expect(report.subagents.map((s) => s.stepsUsed)).toEqual([3])
    expect(report.reason).toBe("max_steps")
    expect(report.stepsUsed).toBe(5)
    // p0, the child's three, p1: the parent's 3rd request never went out.
    expect(server.requests).toHaveLength(5)
  }, 60_000)
})

describe("a sub-agent's pause reaches the person", () => {
  test("the child pauses on a repeated failing command: the parent's turn pauses too, with the child's incident, exit 1", async () => {
    const server = await serve([
      toolCallStream("task", { description: "build", prompt: "Make the build pass." }, { id: "p0" }),
      ...[1, 2, 3, 4].map((i) => toolCallStream("bash", { command: "exit 1" }, { id: `c${i}`, text: "Running it again." })),
      textStream("The parent carries on regardless.")
    ])
    // (The breaker off, so no cooldown step sits between the failing runs.)
    const env = { LOOPGUARD_SUBAGENTS_ENABLED: "true", LOOPGUARD_SUBAGENTS_SHARE_OF_REMAINING: "1", LOOPGUARD_TRY_BEST_ENABLED: "true", LOOPGUARD_BREAKER_ENABLED: "false" }
    const r = await cli(["run", "--base-url", server.baseURL, "--model", server.modelId, "--prompt", "ship it", "--cwd", workdir()], env)
    expect(r.code).toBe(1)
    // The parent model was not asked to carry on: p0 and the child's four requests only.
    expect(server.requests).toHaveLength(5)
    expect(r.stdout).toContain("try-best paused the run")
    expect(r.stdout).toMatch(/a sub-agent \(run\/task-0-1\) paused: bash_retry/)
    expect(r.stdout).toContain("── paused:")
  }, 60_000)
})
