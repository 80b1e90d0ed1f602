/**
 * A server that echoes the Authorization header back in every kind of error, and a model that
 * asks tools for the key: the key must not appear in the text report, the `--json` output,
 * stderr, the session files, or any later request the server sees.
 */
import { startScriptedServer, textStream, toolCallStream, type ScriptedResponse, type ScriptedServer } from "@loopguard/ai-sdk/testing"
import { afterAll, describe, expect, test } from "bun:test"
import { spawn } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import type { IncomingHttpHeaders } from "node:http"

const KEY = "lg-e2e-Secret-Key-9f8e7d6c5b4a"
const root = resolve(import.meta.dir, "..")
const dirs: Array<string> = []
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), "lg-secrets-"))
  dirs.push(d)
  return d
}

const echo = (headers: IncomingHttpHeaders) => `you sent authorization: ${headers.authorization}; key ${KEY} is not valid`

/** One scripted reply per error kind, each echoing the header it received. */
const ERROR_KINDS: Record<string, (h: IncomingHttpHeaders) => ScriptedResponse> = {
  "401": (h) => ({ type: "error", status: 401, body: { error: { message: echo(h), type: "invalid_request_error", code: "invalid_api_key" } } }),
  "400": (h) => ({ type: "error", status: 400, body: { error: { message: echo(h), type: "invalid_request_error" } } }),
  "429": (h) => ({ type: "error", status: 429, headers: { "retry-after": "0", "x-echo": String(h.authorization) }, body: echo(h) }),
  "500": (h) => ({ type: "error", status: 500, body: { error: { message: echo(h), type: "server_error" } } }),
  "mid-stream": (h) => ({
    type: "stream",
    chunks: [{ text: "Starting" }, { raw: JSON.stringify({ error: { message: echo(h), type: "server_error", code: "stream_failed" } }) }],
    finish: null
  })
}

interface CliRun {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
  readonly files: string
}

const runCli = async (server: ScriptedServer, extra: ReadonlyArray<string>, cwd: string): Promise<CliRun> => {
  const sessionDir = tempDir()
  const config = join(tempDir(), "lg.json")
  const noRetry = { maxRetries: 0 }
  writeFileSync(config, JSON.stringify({ retry: { request: noRetry, stream: noRetry, server: noRetry, rateLimit: noRetry, unknown: noRetry, network: { mode: "bounded", maxRetries: 0 } } }))
  const env: Record<string, string> = {}
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("LOOPGUARD_")) env[k] = v
  env["LG_TEST_KEY"] = KEY
  const args = ["run", "packages/cli/src/main.ts", "run", "--base-url", server.baseURL, "--model", "m", "--prompt", "go", "--api-key-env", "LG_TEST_KEY"]
  const child = spawn(process.execPath, [...args, "--cwd", cwd, "--session-dir", sessionDir, "--config", config, ...extra], { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] })
  let stdout = ""
  let stderr = ""
  child.stdout.on("data", (d) => (stdout += d))
  child.stderr.on("data", (d) => (stderr += d))
  const code = await new Promise<number | null>((done) => child.on("close", (c) => done(c)))
  const files = readdirSync(sessionDir).map((f) => readFileSync(join(sessionDir, f), "utf8")).join("\n")
  return { code, stdout, stderr, files }
}

const servers: Array<ScriptedServer> = []
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()))
})

describe("the API key never leaves loopguard", () => {
  for (const [kind, reply] of Object.entries(ERROR_KINDS)) {
    test(`a ${kind} error that echoes the Authorization header: text report, --json, stderr and session files are clean`, async () => {
      const server = await startScriptedServer((_body, _i, headers) => reply(headers))
      servers.push(server)
      const cwd = tempDir()
      const [text, json] = await Promise.all([runCli(server, [], cwd), runCli(server, ["--json"], cwd)])
      // The server really echoed the key: the run saw it and reported the error.
      expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`)
      expect(text.code).toBe(1)
      expect(text.stdout + json.stdout + json.files).toContain("[REDACTED]")
      expect(json.stdout).toContain('"type":"report"')
      for (const out of [text, json]) {
        expect(out.stdout).not.toContain(KEY)
        expect(out.stderr).not.toContain(KEY)
        expect(out.files).not.toContain(KEY)
      }
      expect(json.files.length).toBeGreaterThan(0)
    }, 60_000)
  }

  test("a server that streams the key back as text, split over deltas: no piece of it is printed or stored", async () => {
    const server = await startScriptedServer([
      // Enough words first that the delta holding the key's first half is published as progress.
      { type: "stream", chunks: [{ text: `${"word ".repeat(70)}your key is ${KEY.slice(0, 12)}` }, { text: KEY.slice(12) }, { text: ", thanks." }], finish: "stop" }
    ])
    servers.push(server)
    const run = await runCli(server, ["--json"], tempDir())
    const everything = run.stdout + run.stderr + run.files
    expect(run.code).toBe(0)
    expect(everything).toContain("your key is [REDACTED], thanks.")
    expect(everything).not.toContain(KEY.slice(0, 12))
    expect(everything).not.toContain(KEY.slice(12))
  }, 60_000)

  test("tools cannot hand the key to the model: the shell's environment lacks it and tool output is redacted", async () => {
    const cwd = tempDir()
    writeFileSync(join(cwd, "notes.txt"), `the key is ${KEY}\n`)
    const server = await startScriptedServer([
      toolCallStream("bash", { command: 'echo "env=[$LG_TEST_KEY]"; cat notes.txt' }, { id: "c1" }),
      toolCallStream("read_file", { path: "notes.txt" }, { id: "c2" }),
      textStream("Done.")
    ])
    servers.push(server)
    const run = await runCli(server, ["--json"], cwd)
    expect(server.requests).toHaveLength(3)
    const second = JSON.stringify(server.requests[1]!.body)
    expect(second).toContain("env=[]")
    expect(second).toContain("the key is [REDACTED]")
    expect(JSON.stringify(server.requests[2]!.body)).not.toContain(KEY)
    expect(run.stdout + run.stderr + run.files).not.toContain(KEY)
    expect(run.code).toBe(0)
  }, 60_000)
})
