/**
 * `loopguard proxy --workers 2` as a user runs it: two processes serve one address (the kernel
 * spreads the connections), one conversation's requests land on either and make one session, a
 * Retry-After told to one worker holds the other, SIGTERM ends them all with 143, a worker that
 * ends on its own ends the rest (exit 1), and workers whose supervisor was killed stop on their own. Linux only (SO_REUSEPORT); elsewhere `--workers`
 * above 1 is refused (proxy-workers.test.ts beside the command checks the reasons).
 */
import { textStream } from "@loopguard/ai-sdk/testing"
import { describe, expect, test } from "bun:test"
import { spawn, spawnSync } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { availableParallelism } from "node:os"
import { resolve } from "node:path"
import { Effect } from "effect"
import { it } from "./effect-test.js"
import { killOnClose, scriptedServer, tempDir } from "./scoped-resources.js"
import { busyFirst, cliEnv, listedSessions, waitUntil } from "./cli-fixture.js"

const ROOT = resolve(import.meta.dir, "..")
const linux = process.platform === "linux"

/** The children of `pid` (its workers), from /proc. */
const childrenOf = (pid: number): Array<number> =>
  readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter((c) => c !== "").map(Number)

/** Whether `pid` is still a process (a zombie counts as gone). */
const alive = (pid: number): boolean => existsSync(`/proc/${pid}`) && !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, "utf8"))

/**
 * `loopguard proxy --workers 2` (or `count`) in front of `upstream`, on a port of its choosing; killed
 * with the scope, its workers too. `cpus`: run it on those cores only (`taskset -c`, which execs it).
 */
const startWorkers = (upstream: string, extra: ReadonlyArray<string> = [], count = "2", cpus?: string) =>
  Effect.gen(function* () {
    const command = [process.execPath, "packages/cli/src/main.ts", "proxy", "--upstream", upstream, "--listen", "127.0.0.1:0", "--workers", count, ...extra]
    const pinned = cpus === undefined ? command : ["taskset", "-c", cpus, ...command]
    const child = yield* killOnClose(
      spawn(pinned[0]!, pinned.slice(1), {
        cwd: ROOT,
        env: cliEnv(),
        stdio: ["ignore", "pipe", "pipe"]
      })
    )
    const out = { stderr: "" }
    child.stderr!.on("data", (d) => (out.stderr += d))
    const closed = new Promise<number | null>((done) => child.on("close", (code) => done(code)))
    yield* Effect.promise(() => waitUntil(() => out.stderr.includes("listening on") || child.exitCode !== null, 60_000))
    const port = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out.stderr)?.[1]
    if (port === undefined) throw new Error(`the proxy did not start: ${out.stderr}`)
    const workers = childrenOf(child.pid!)
    // Whatever the test leaves running, by pid: a worker is not the test's child, so killOnClose does not reach it.
    yield* Effect.addFinalizer(() => Effect.sync(() => workers.filter(alive).forEach((pid) => process.kill(pid, "SIGKILL"))))
    return { child, out, closed, workers, url: `http://127.0.0.1:${port}/v1/chat/completions` }
  })

const hasTaskset = (): boolean => spawnSync("taskset", ["--version"], { encoding: "utf8" }).status === 0

/** One request on a connection of its own (so the kernel picks a worker for it afresh). */
const ask = (url: string, session: string, messages: ReadonlyArray<{ role: string; content: string }>) =>
  fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", connection: "close", "x-loopguard-session": session },
    body: JSON.stringify({ model: "scripted-model", stream: true, messages })
  }).then(async (r) => ({ status: r.status, text: await r.text() }))

describe.skipIf(!linux)("loopguard proxy --workers 2 (Linux)", () => {
  it.live("two workers serve one address; one conversation across them is one session; SIGTERM ends all with 143", () => Effect.gen(function* () {
    const server = yield* scriptedServer(() => textStream("all good here"))
    const dir = yield* tempDir("lg-proxy-workers-")
    const proxy = yield* startWorkers(server.baseURL, ["--session-dir", dir])
    expect(proxy.out.stderr).toContain("(2 workers)")
    expect(proxy.workers.length).toBe(2)
    // Fresh connections until each worker has served one (the kernel's pick: 2^-40 that one never does).
    for (let i = 0; i < 40 && !(proxy.out.stderr.includes("(worker 1): ") && proxy.out.stderr.includes("(worker 2): ")); i++) {
      expect((yield* Effect.promise(() => ask(proxy.url, `probe-${i}`, [{ role: "user", content: `hello ${i}` }]))).status).toBe(200)
      yield* Effect.promise(() => waitUntil(() => proxy.out.stderr.includes(`probe-${i} chat`), 30_000))
    }
    expect(proxy.out.stderr).toContain("(worker 1): ")
    expect(proxy.out.stderr).toContain("(worker 2): ")
    // One conversation, each request on its own connection: whichever worker serves it, one session.
    const history: Array<{ role: string; content: string }> = []
    for (const say of ["first", "second", "third"]) {
      history.push({ role: "user", content: say })
      const r = yield* Effect.promise(() => ask(proxy.url, "conv", history))
      expect(r.text).toContain("\"content\":\" here\"")
      history.push({ role: "assistant", content: "all good here" })
    }
    proxy.child.kill("SIGTERM")
    expect(yield* Effect.promise(() => proxy.closed)).toBe(143)
    for (const pid of proxy.workers) expect(alive(pid)).toBe(false)
    expect(proxy.out.stderr).not.toContain("session store:")
    const listed = listedSessions(["--session-dir", dir])
    expect(listed.status).toBe(0)
    const conv = listed.sessions.filter((s) => s.id === "conv")
    expect(conv).toEqual([expect.objectContaining({ id: "conv", steps: 3 })])
  }), 180_000)

  it.live("--workers auto: one worker per core the process may run on (one process on one core)", () => Effect.gen(function* () {
    const server = yield* scriptedServer(() => textStream("all good here"))
    // Held to two cores where taskset is (util-linux), so a machine of many cores does not start dozens of workers here.
    const pin = hasTaskset() && availableParallelism() >= 2 ? "0,1" : undefined
    const proxy = yield* startWorkers(server.baseURL, [], "auto", pin)
    const cores = pin !== undefined ? 2 : Math.min(64, availableParallelism())
    if (cores > 1) expect(proxy.out.stderr).toContain(`(${cores} workers)`)
    else expect(proxy.out.stderr).not.toContain("workers)")
    expect(proxy.workers.length).toBe(cores > 1 ? cores : 0)
    const r = yield* Effect.promise(() => ask(proxy.url, "auto", [{ role: "user", content: "hello" }]))
    expect(r.text).toContain("\"content\":\" here\"")
    proxy.child.kill("SIGTERM")
    expect(yield* Effect.promise(() => proxy.closed)).toBe(143)
    for (const pid of proxy.workers) expect(alive(pid)).toBe(false)
    if (pin === undefined) return
    // On one core: one process serving, no supervisor.
    const single = yield* startWorkers(server.baseURL, [], "auto", "0")
    expect(single.out.stderr).not.toContain("workers)")
    expect(single.workers).toEqual([])
    expect((yield* Effect.promise(() => ask(single.url, "auto-1", [{ role: "user", content: "hello" }]))).text).toContain("\"content\":\" here\"")
    single.child.kill("SIGTERM")
    expect(yield* Effect.promise(() => single.closed)).toBe(143)
  }), 120_000)

  it.live("a Retry-After told to one worker holds the other", () => Effect.gen(function* () {
    const { arrivals, script } = busyFirst()
    const server = yield* scriptedServer(script)
    const proxy = yield* startWorkers(server.baseURL)
    const first = ask(proxy.url, "one", [{ role: "user", content: "hi" }])
    yield* Effect.promise(() => waitUntil(() => /one: upstream HTTP 429 .*retry 1 in/.test(proxy.out.stderr), 30_000))
    // The hold goes from the worker told to the supervisor and on to the other: milliseconds.
    yield* Effect.sleep("200 millis")
    // Six fresh connections: each worker gets some of them (all six on one: 1 in 32).
    const others = yield* Effect.promise(() => Promise.all(Array.from({ length: 6 }, (_, k) => ask(proxy.url, `two-${k}`, [{ role: "user", content: `hello ${k}` }]))))
    expect((yield* Effect.promise(() => first)).status).toBe(200)
    for (const r of others) expect(r.text).toContain("done")
    expect(arrivals.length).toBe(8)
    // No worker called the upstream again before the 2 s it asked for had passed.
    for (const t of arrivals.slice(1)) expect(t - arrivals[0]!).toBeGreaterThanOrEqual(1900)
  }), 180_000)

  it.live("a worker that ends on its own ends the others and the supervisor, which says which (exit 1)", () => Effect.gen(function* () {
    const server = yield* scriptedServer(() => textStream("ok"))
    const proxy = yield* startWorkers(server.baseURL)
    const [gone, other] = proxy.workers as [number, number]
    process.kill(gone, "SIGKILL")
    expect(yield* Effect.promise(() => proxy.closed)).toBe(1)
    expect(proxy.out.stderr).toMatch(new RegExp(`proxy worker [12] \\(pid ${gone}\\) ended by SIGKILL; the other workers were stopped`))
    expect(alive(other)).toBe(false)
  }), 120_000)

  it.live("workers whose supervisor was killed stop on their own", () => Effect.gen(function* () {
    const server = yield* scriptedServer(() => textStream("ok"))
    const proxy = yield* startWorkers(server.baseURL)
    expect(proxy.workers.filter(alive).length).toBe(2)
    proxy.child.kill("SIGKILL")
    yield* Effect.promise(() => proxy.closed)
    yield* Effect.promise(() => waitUntil(() => proxy.workers.every((pid) => !alive(pid)), 30_000))
    for (const pid of proxy.workers) expect(alive(pid)).toBe(false)
  }), 120_000)
})

test("--workers out of range or not a number: one line naming it, exit 2", () => {
  for (const n of ["0", "65", "two", "2.5"]) {
    const r = spawnSync(process.execPath, ["packages/cli/src/main.ts", "proxy", "--upstream", "http://127.0.0.1:1/v1", "--workers", n], { cwd: ROOT, env: cliEnv(), encoding: "utf8", timeout: 60_000 })
    expect(r.status).toBe(2)
    expect(r.stderr.trim().split("\n").length).toBe(1)
    expect(r.stderr).toContain("workers")
  }
})
