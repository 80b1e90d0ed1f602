/**
 * Two `loopguard proxy` processes on one Postgres serve one conversation whose requests alternate
 * between them: they give the same verdicts as a single proxy, keep one session record, and share
 * one backoff (a Retry-After told to one holds the other). Needs TEST_POSTGRES_URL
 * (`. .ci/postgres.sh`); without it the suite is skipped with a note — except under CI=true, where
 * that is a failure.
 */
import { toolCallStream } from "@loopguard/ai-sdk/testing"
import { startProxy } from "@loopguard/proxy"
import { describe, expect, test } from "bun:test"
import { spawn, type ChildProcess } from "node:child_process"
import { resolve } from "node:path"
import { DEFAULT_CONFIG } from "@loopguard/effect/config"
import { openSqlClient } from "@loopguard/effect/store"
import { Effect } from "effect"
import { it } from "./effect-test.js"
import { scriptedServer } from "./scoped-resources.js"
import { busyFirst, cliEnv, listedSessions, waitUntil } from "./cli-fixture.js"
import { freePort } from "./free-port.js"

const ROOT = resolve(import.meta.dir, "..")
const url = process.env["TEST_POSTGRES_URL"]


const freshDatabase = async (base: string): Promise<string> => {
  const name = `lg_proxy_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`
  await Effect.runPromise(Effect.scoped(Effect.flatMap(openSqlClient(base), ({ client }) => client.unsafe(`CREATE DATABASE ${name}`))))
  const u = new URL(base)
  u.pathname = `/${name}`
  return u.toString()
}

/** A proxy process on `store`; resolves once it says it listens. */
const startReplica = async (upstream: string, store: string) => {
  const port = await freePort()
  const child = spawn(process.execPath, ["packages/cli/src/main.ts", "proxy", "--upstream", upstream, "--listen", `127.0.0.1:${port}`, "--store", store], {
    cwd: ROOT,
    env: cliEnv(),
    stdio: ["ignore", "pipe", "pipe"]
  })
  const out = { stderr: "" }
  child.stderr!.on("data", (d) => (out.stderr += d))
  await waitUntil(() => out.stderr.includes("listening on") || child.exitCode !== null, 60_000)
  if (!out.stderr.includes("listening on")) throw new Error(`the proxy did not start: ${out.stderr}`)
  return { child, url: `http://127.0.0.1:${port}/v1/chat/completions`, out }
}

const stop = async (child: ChildProcess) => {
  if (child.exitCode !== null) return
  const closed = new Promise((done) => child.on("close", done))
  child.kill("SIGTERM")
  await closed
}

/** A replica that is stopped (SIGTERM, waited for) when the scope closes. */
const replica = (upstream: string, store: string) =>
  Effect.acquireRelease(Effect.promise(() => startReplica(upstream, store)), (r) => Effect.promise(() => stop(r.child)))

/** An in-process proxy, closed when the scope closes. */
const inProcessProxy = (options: Parameters<typeof startProxy>[0]) =>
  Effect.acquireRelease(Effect.promise(() => startProxy(options)), (proxy) => Effect.promise(() => proxy.close()))

const call = (i: number) => [
  { role: "assistant", content: null, tool_calls: [{ id: `c${i}`, type: "function", function: { name: "bash", arguments: '{"command":"make build"}' } }] },
  { role: "tool", tool_call_id: `c${i}`, content: "make: *** [build] Error 2" }
]

/** The conversation after `n` runs of the same failing call. */
const conversation = (n: number) => ({
  model: "scripted-model",
  stream: true,
  messages: [{ role: "system", content: "You are a build agent." }, { role: "user", content: "make the build pass" }, ...Array.from({ length: n }, (_, i) => call(i)).flat()]
})

const ask = async (target: string, n: number) => {
  const res = await fetch(target, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(conversation(n)) })
  await res.text()
  return res.headers.get("x-loopguard-action")
}

if (url === undefined || url === "") {
  if (process.env["CI"] === "true") {
    test("proxy replicas on Postgres: TEST_POSTGRES_URL must be set in CI (.ci/postgres.sh)", () => {
      expect(process.env["TEST_POSTGRES_URL"]).toBeDefined()
    })
  } else {
    process.stderr.write("proxy-replicas.test.ts: SKIPPED — TEST_POSTGRES_URL is not set (source .ci/postgres.sh to run it)\n")
    test.skip("proxy replicas on Postgres (TEST_POSTGRES_URL not set)", () => {})
  }
} else {
  describe("two proxy processes on one Postgres", () => {
    it.live("one conversation served alternately: the same verdicts as one proxy, one session record", () => Effect.gen(function* () {
      const server = yield* scriptedServer(() => toolCallStream("bash", { command: "make build" }))
      const store = yield* Effect.promise(() => freshDatabase(url))
      const single = yield* inProcessProxy({ config: { ...DEFAULT_CONFIG, proxy: { ...DEFAULT_CONFIG.proxy, upstream: server.baseURL } }, host: "127.0.0.1", port: 0 })
      const a = yield* replica(server.baseURL, store)
      const b = yield* replica(server.baseURL, store)
      const alone: Array<string | null> = []
      const alternating: Array<string | null> = []
      for (let n = 0; n <= 9; n++) {
        alone.push(yield* Effect.promise(() => ask(`${single.url}/v1/chat/completions`, n)))
        alternating.push(yield* Effect.promise(() => ask(n % 2 === 0 ? a.url : b.url, n)))
      }
      expect(alternating).toEqual(alone)
      expect(alternating).toContain("stop")
      expect(alternating.indexOf("stop")).toBeLessThanOrEqual(8)
      // A replica writes a request's messages after its reply; stopping both waits for those writes.
      yield* Effect.promise(() => stop(a.child))
      yield* Effect.promise(() => stop(b.child))
      expect(a.out.stderr + b.out.stderr).not.toContain("session store:")
      const listed = listedSessions(["--store", store])
      expect(listed.status).toBe(0)
      const sessions = listed.sessions
      expect(sessions.length).toBe(1)
      // Every step of the conversation once, whichever replica wrote it.
      expect(sessions[0]!.steps).toBe(10)
    }), 180_000)

    it.live("a Retry-After told to one replica holds the other too", () => Effect.gen(function* () {
      const { arrivals, script } = busyFirst()
      const server = yield* scriptedServer(script)
      const store = yield* Effect.promise(() => freshDatabase(url))
      const a = yield* replica(server.baseURL, store)
      const b = yield* replica(server.baseURL, store)
      const first = fetch(a.url, { method: "POST", headers: { "content-type": "application/json", "x-loopguard-session": "one" }, body: JSON.stringify({ model: "m", stream: true, messages: [{ role: "user", content: "hi" }] }) })
      yield* Effect.promise(() => waitUntil(() => arrivals.length >= 1, 30_000))
      // Replica a logs its retry once the hold is in the store: a request that reached b before then was not told yet.
      yield* Effect.promise(() => waitUntil(() => /one: upstream HTTP 429 .*retry 1 in/.test(a.out.stderr), 30_000))
      const second = fetch(b.url, { method: "POST", headers: { "content-type": "application/json", "x-loopguard-session": "two" }, body: JSON.stringify({ model: "m", stream: true, messages: [{ role: "user", content: "hello" }] }) })
      const [r1, r2] = yield* Effect.promise(() => Promise.all([first, second]))
      expect(r1.status).toBe(200)
      expect(r2.status).toBe(200)
      expect(yield* Effect.promise(() => r2.text())).toContain("done")
      expect(arrivals.length).toBe(3)
      // Neither replica called the upstream again before the 2 s it asked for had passed.
      for (const t of arrivals.slice(1)) expect(t - arrivals[0]!).toBeGreaterThanOrEqual(1900)
    }), 180_000)
  })
}
