/**
 * `loopguard proxy` as a user runs it: a real subprocess in front of the scripted server. It says
 * on stderr when it listens, serves an agent's requests (a repeating reply cut), writes the
 * session to --session-dir where `loopguard sessions` reads it (without the client's key, which the
 * conversation quotes), and ends on SIGTERM with 143.
 * Bad flags are one line and exit 2.
 */
import { repeatLoop, textStream } from "@loopguard/ai-sdk/testing"
import { expect, test } from "bun:test"
import { spawn, spawnSync } from "node:child_process"
import { readdirSync, readFileSync, writeFileSync } from "node:fs"

import { join, resolve } from "node:path"
import { it } from "./effect-test.js"
import { killOnClose, scriptedServer, tempDir } from "./scoped-resources.js"
import { cliEnv, waitUntil } from "./cli-fixture.js"
import { openSqlClient } from "@loopguard/effect/store"
import { Effect } from "effect"
import { freePort } from "./free-port.js"

const ROOT = resolve(import.meta.dir, "..")
const CLIENT_KEY = "sk-proxy-cli-client-key-5150"
/** A credential in the proxy's own environment that the agent's conversation quotes (a tool printed it). */
const ENV_KEY = "plain-env-credential-6262"


it.live("loopguard proxy: ready line, a cut loop, the session stored, SIGTERM ends it with 143", () => Effect.gen(function* () {
  const server = yield* scriptedServer([repeatLoop("round and round the same few words we go", 300, { finish: "stop", chunkDelayMs: 1 }), textStream("fine")])
  const dir = yield* tempDir("lg-proxy-cli-")
  const port = yield* Effect.promise(() => freePort())
  const child = yield* killOnClose(spawn(process.execPath, ["packages/cli/src/main.ts", "proxy", "--upstream", server.baseURL, "--listen", `127.0.0.1:${port}`, "--session-dir", dir], {
    cwd: ROOT,
    env: { ...cliEnv(), ACME_API_KEY: ENV_KEY },
    stdio: ["ignore", "pipe", "pipe"]
  }))
  const out = { stdout: "", stderr: "" }
  child.stdout.on("data", (d) => (out.stdout += d))
  child.stderr.on("data", (d) => (out.stderr += d))
  const closed = new Promise<number | null>((done) => child.on("close", (code) => done(code)))
  yield* Effect.promise(() => waitUntil(() => out.stderr.includes("listening on"), 30_000))
  expect(out.stderr).toContain(`listening on http://127.0.0.1:${port} (agents: base URL http://127.0.0.1:${port}/v1; Gemini CLI: http://127.0.0.1:${port})`)
  const reply = yield* Effect.promise(() => fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
    method: "POST",
    // The client's key goes upstream; quoted in the conversation, it is not kept in the session.
    headers: { "content-type": "application/json", "x-loopguard-session": "cli-run", authorization: `Bearer ${CLIENT_KEY}` },
    body: JSON.stringify({ model: "scripted-model", stream: true, messages: [{ role: "user", content: `write (my key: ${CLIENT_KEY}; env printed ACME_API_KEY=${ENV_KEY})` }] })
  }))
  const body = yield* Effect.promise(() => reply.text())
  expect(reply.headers.get("x-loopguard-session")).toBe("cli-run")
  expect(body).toContain("[loopguard: this reply started repeating itself")
  expect(body.trimEnd().endsWith("data: [DONE]")).toBe(true)
  const health = yield* Effect.promise(() => fetch(`http://127.0.0.1:${port}/loopguard/health`))
  expect(health.status).toBe(200)
  yield* Effect.promise(() => waitUntil(() => out.stderr.includes("cli-run chat"), 30_000))
  expect(out.stderr).toMatch(/cli-run chat scripted-model pass → cut 200/)
  child.kill("SIGTERM")
  expect(yield* Effect.promise(() => closed)).toBe(143)
  const listed = spawnSync(process.execPath, ["packages/cli/src/main.ts", "sessions", "list", "--session-dir", dir], { cwd: ROOT, env: cliEnv(), encoding: "utf8" })
  expect(listed.status).toBe(0)
  expect(listed.stdout).toContain("cli-run")
  // The user turn and the reply the client got (cut, with the proxy's notice) are in the session; audit reads the export.
  const exported = spawnSync(process.execPath, ["packages/cli/src/main.ts", "sessions", "export", "cli-run", "--session-dir", dir], { cwd: ROOT, env: cliEnv(), encoding: "utf8" })
  expect(exported.status).toBe(0)
  const lines = exported.stdout.trim().split("\n").map((l) => JSON.parse(l) as { type: string; text?: string })
  expect(lines.filter((l) => l.type === "user").map((l) => l.text)).toEqual(["write (my key: [REDACTED]; env printed ACME_API_KEY=[REDACTED])"])
  for (const file of readdirSync(dir)) {
    const stored = readFileSync(join(dir, file)).toString("latin1")
    expect(stored).not.toContain(CLIENT_KEY)
    expect(stored).not.toContain(ENV_KEY)
  }
  expect(lines.find((l) => l.type === "assistant")?.text).toContain("round and round")
  // What the proxy did with the request is kept beside the session.
  const rows = yield* Effect.scoped(
    Effect.flatMap(openSqlClient(dir), ({ client }) => client.unsafe<{ session_id: string; record: string }>("SELECT session_id, record FROM loopguard_proxy_requests"))
  )
  expect(rows.map((r) => [r.session_id, JSON.parse(r.record).outcome])).toEqual([["cli-run", "cut"]])
  // `sessions show` prints it after the messages.
  const shown = spawnSync(process.execPath, ["packages/cli/src/main.ts", "sessions", "show", "cli-run", "--session-dir", dir], { cwd: ROOT, env: cliEnv(), encoding: "utf8" })
  expect(shown.status).toBe(0)
  expect(shown.stdout).toContain("proxy requests: 1")
  expect(shown.stdout).toMatch(/\n  \d{4}-\d\d-\d\dT[\d:.]+Z chat scripted-model pass → cut 200/)
}), 90_000)

test("loopguard proxy with a bad flag: one line, exit 2", () => {
  for (const args of [["--upstream", "ftp://x"], ["--upstream", "http://127.0.0.1:1/v1", "--listen", "nowhere"], []]) {
    const r = spawnSync(process.execPath, ["packages/cli/src/main.ts", "proxy", ...args], { cwd: ROOT, env: cliEnv(), encoding: "utf8", timeout: 60_000 })
    expect(r.status).toBe(2)
    expect(r.stderr.trim().split("\n").length).toBe(1)
    expect(r.stderr).toMatch(/--upstream|--listen/)
  }
}, 90_000)

it.live("loopguard proxy: a route's missing config file, or holding the upstream key without a token: one line, exit 2", () => Effect.gen(function* () {
  const dir = yield* tempDir("lg-proxy-cfg-")
  const config = join(dir, "loopguard.json")
  writeFileSync(config, JSON.stringify({ proxy: { upstream: "http://127.0.0.1:1/v1", routes: { "raw-": { upstream: "http://127.0.0.1:2/v1", config: join(dir, "missing.jsonc") } } } }))
  const route = spawnSync(process.execPath, ["packages/cli/src/main.ts", "proxy", "--config", config], { cwd: ROOT, env: cliEnv(), encoding: "utf8", timeout: 60_000 })
  expect(route.status).toBe(2)
  expect(route.stderr.trim().split("\n").length).toBe(1)
  expect(route.stderr).toContain("proxy.routes.raw-.config")
  const env = { ...cliEnv(), LOOPGUARD_PROXY_UPSTREAM_KEY_ENV: "LG_TEST_UPSTREAM_KEY", LG_TEST_UPSTREAM_KEY: "sk-upstream-secret-value" }
  const keyed = spawnSync(process.execPath, ["packages/cli/src/main.ts", "proxy", "--upstream", "http://127.0.0.1:1/v1"], { cwd: ROOT, env, encoding: "utf8", timeout: 60_000 })
  expect(keyed.status).toBe(2)
  expect(keyed.stderr).toContain("LOOPGUARD_PROXY_TOKEN")
  expect(keyed.stderr).not.toContain("sk-upstream-secret-value")
  // The key variable named but not set: refused, not served open without a token.
  const unset = { ...cliEnv(), LOOPGUARD_PROXY_UPSTREAM_KEY_ENV: "LG_TEST_UNSET_KEY", LOOPGUARD_PROXY_TOKEN: "tok-set-but-unused-1234" }
  const open = spawnSync(process.execPath, ["packages/cli/src/main.ts", "proxy", "--upstream", "http://127.0.0.1:1/v1"], { cwd: ROOT, env: unset, encoding: "utf8", timeout: 60_000 })
  expect(open.status).toBe(2)
  expect(open.stderr.trim().split("\n").length).toBe(1)
  expect(open.stderr).toContain("LG_TEST_UNSET_KEY, which is not set")
  // A token that keeps no one out (blank, or short enough to guess) is refused, and not printed.
  for (const [token, words] of [["   ", "whitespace"], ["abc12", "shorter than 16"]] as const) {
    const weak = spawnSync(process.execPath, ["packages/cli/src/main.ts", "proxy", "--upstream", "http://127.0.0.1:1/v1"], { cwd: ROOT, env: { ...env, LOOPGUARD_PROXY_TOKEN: token }, encoding: "utf8", timeout: 60_000 })
    expect(weak.status).toBe(2)
    expect(weak.stderr.trim().split("\n").length).toBe(1)
    expect(weak.stderr).toContain(words)
    expect(weak.stderr).not.toContain("abc12")
  }
}), 90_000)

it.live("loopguard proxy holding the upstream key starts with the default token variable LOOPGUARD_PROXY_TOKEN set, and enforces it", () => Effect.gen(function* () {
  const server = yield* scriptedServer([textStream("fine")])
  const port = yield* Effect.promise(() => freePort())
  const env = { ...cliEnv(), LOOPGUARD_PROXY_UPSTREAM_KEY_ENV: "LG_TEST_UPSTREAM_KEY", LG_TEST_UPSTREAM_KEY: "sk-upstream-secret-value", LOOPGUARD_PROXY_TOKEN: "proxy-token-123456" }
  const child = yield* killOnClose(spawn(process.execPath, ["packages/cli/src/main.ts", "proxy", "--upstream", server.baseURL, "--listen", `127.0.0.1:${port}`], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] }))
  let stderr = ""
  child.stderr.on("data", (d) => (stderr += d))
  const closed = new Promise<number | null>((done) => child.on("close", (code) => done(code)))
  yield* Effect.promise(() => Promise.race([waitUntil(() => stderr.includes("listening on"), 30_000), closed]))
  expect(stderr).toContain("listening on")
  const chat = (key: string) =>
    fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
      body: JSON.stringify({ model: "scripted-model", stream: true, messages: [{ role: "user", content: "hi" }] })
    })
  const refused = yield* Effect.promise(() => chat("not-the-token"))
  expect(refused.status).toBe(401)
  const served = yield* Effect.promise(() => chat("proxy-token-123456"))
  expect(served.status).toBe(200)
  expect(yield* Effect.promise(() => served.text())).toContain("fine")
  child.kill("SIGTERM")
  expect(yield* Effect.promise(() => closed)).toBe(143)
}), 90_000)
