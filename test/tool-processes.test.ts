/**
 * Tool and completion-check processes, judged from the process table: timeouts, aborts and fiber
 * interruption kill the whole process group, so nothing is left running.
 */
import { textStream, toolCallStream } from "@loopguard/ai-sdk/testing"
import { CompletionCheck, makeTools, RunLoop } from "@loopguard/effect"
import { killAllGroups, liveGroups, runShell } from "@loopguard/effect/tools"
import { afterAll, describe, expect, test } from "bun:test"
import { Effect, Fiber } from "effect"
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { it } from "./effect-test.js"
import { harness } from "./harness.js"
import { appears, leftoversOf, processesWith, TAG } from "./process-table.js"

const cwd = tmpdir()

describe("runShell process groups", () => {
  test("a timeout kills the whole group: `sleep; echo` leaves nothing behind", async () => {
    const r = await runShell(`sleep ${TAG}101; echo after`, { cwd, timeoutMs: 300 })
    expect(r.failure).toMatch(/timed out after 300 ms/)
    expect(await leftoversOf(`${TAG}101`)).toEqual([])
  }, 30_000)

  test("a background job started with `&` is killed when the command exits", async () => {
    const r = await runShell(`sleep ${TAG}102 > /dev/null 2>&1 & echo started`, { cwd, timeoutMs: 20_000 })
    expect(r).toEqual({ exitCode: 0, output: "started\n" })
    expect(await leftoversOf(`${TAG}102`)).toEqual([])
  }, 30_000)

  test("a background job holding the output pipe does not keep the call waiting", async () => {
    const r = await runShell(`sleep ${TAG}103 & echo started`, { cwd, timeoutMs: 20_000 })
    expect(r.exitCode).toBe(0)
    expect(r.failure).toBeUndefined()
    expect(await leftoversOf(`${TAG}103`)).toEqual([])
  }, 30_000)

  test("jobs a `set -m` shell put in groups of their own die with the command too (they stay in its session)", async () => {
    const r = await runShell(`set -m; sleep ${TAG}140 > /dev/null 2>&1 & sleep ${TAG}141 > /dev/null 2>&1 & echo started`, { cwd, timeoutMs: 20_000 })
    expect(r).toEqual({ exitCode: 0, output: "started\n" })
    expect([...(await leftoversOf(`${TAG}140`)), ...(await leftoversOf(`${TAG}141`))]).toEqual([])
    const controller = new AbortController()
    const running = runShell(`set -m; sleep ${TAG}142 & sleep ${TAG}143`, { cwd, timeoutMs: 20_000, signal: controller.signal })
    await appears(`${TAG}143`)
    controller.abort()
    expect((await running).failure).toBe("cancelled")
    expect([...(await leftoversOf(`${TAG}142`)), ...(await leftoversOf(`${TAG}143`))]).toEqual([])
  }, 30_000)

  test("abort kills the group, grandchildren included", async () => {
    const controller = new AbortController()
    const running = runShell(`bash -c 'sleep ${TAG}104' & sleep ${TAG}105`, { cwd, timeoutMs: 20_000, signal: controller.signal })
    await appears(`${TAG}105`)
    expect(processesWith(`${TAG}104`).length).toBeGreaterThan(0)
    controller.abort()
    const r = await running
    expect(r.failure).toBe("cancelled")
    expect(await leftoversOf(`${TAG}10`)).toEqual([])
    expect(liveGroups()).toEqual([])
  }, 30_000)

  test("killAllGroups (the exit and signal hooks) stops a running command and tells its call why", async () => {
    const running = runShell(`sleep ${TAG}106 & sleep ${TAG}107`, { cwd, timeoutMs: 20_000 })
    await appears(`${TAG}107`)
    killAllGroups("loopguard received SIGTERM")
    const r = await running
    expect(r.failure).toBe("loopguard received SIGTERM")
    expect([...(await leftoversOf(`${TAG}106`)), ...(await leftoversOf(`${TAG}107`))]).toEqual([])
  }, 30_000)

  test("output is capped while it streams: `yes` keeps head and tail and says what was dropped", async () => {
    const r = await runShell("yes | head -c 50000000; echo; echo END", { cwd, timeoutMs: 25_000, maxOutputChars: 100 })
    expect(r.exitCode).toBe(0)
    expect(r.output.startsWith("y\ny\n")).toBe(true)
    expect(r.output).toMatch(/…\[\d+ characters of output dropped\]…/)
    expect(r.output.endsWith("END\n")).toBe(true)
    expect(r.output.length).toBeLessThan(200)
  }, 30_000)

  test("a timeout above 2^31−1 ms (library callers bypass the config check) does not fire at once", async () => {
    const r = await runShell("sleep 0.3; echo slept", { cwd, timeoutMs: 2 ** 31 })
    expect(r).toEqual({ exitCode: 0, output: "slept\n" })
  }, 30_000)

  test("the command sees only the environment it is given", async () => {
    const r = await runShell("echo \"[$SECRET_THING][$PATH]\"", { cwd, timeoutMs: 10_000, env: { PATH: "/usr/bin:/bin" } })
    expect(r.output).toBe("[][/usr/bin:/bin]\n")
  }, 30_000)
})

const bash = makeTools(
  [
    {
      spec: { name: "bash", description: "", inputSchema: {} },
      run: async (input, signal) => {
        const r = await runShell(String(input["command"]), { cwd: tmpdir(), timeoutMs: 60_000, signal })
        return { state: "completed", output: r.output }
      }
    }
  ],
  60_000
)

describe("tool processes and fiber interruption", () => {
  test("interrupting the fiber running a bash tool kills its whole process group", async () => {
    const fiber = Effect.runFork(bash.execute({ id: "c1", name: "bash", input: { command: `sleep ${TAG}201 & sleep ${TAG}202; echo` } }))
    await appears(`${TAG}202`)
    expect(processesWith(`${TAG}201`).length).toBeGreaterThan(0)
    await Effect.runPromise(Fiber.interrupt(fiber))
    expect(await leftoversOf(`${TAG}20`)).toEqual([])
  }, 30_000)

  test("the per-tool timeout kills the group too", async () => {
    const r = await Effect.runPromise(
      makeTools([{ spec: { name: "bash", description: "", inputSchema: {} }, run: (i, s) => runShell(String(i["command"]), { cwd: tmpdir(), timeoutMs: 60_000, signal: s }).then((o) => ({ state: "completed" as const, output: o.output })) }], 300).execute({
        id: "c1",
        name: "bash",
        input: { command: `sleep ${TAG}203 & sleep ${TAG}204` }
      })
    )
    expect(r.error).toMatch(/timed out after 300 ms/)
    expect(await leftoversOf(`${TAG}20`)).toEqual([])
  }, 30_000)

  test("the completion check's command is killed with its group at its timeout and on interruption", async () => {
    const check = Effect.gen(function* () {
      return yield* (yield* CompletionCheck).run(`sleep ${TAG}205 & sleep ${TAG}206`, 300)
    }).pipe(Effect.provide(CompletionCheck.layerShell(tmpdir())))
    const r = await Effect.runPromise(check)
    expect(r.ok).toBe(false)
    expect(r.output).toMatch(/timed out after 300 ms/)
    expect(await leftoversOf(`${TAG}20`)).toEqual([])

    const long = Effect.gen(function* () {
      return yield* (yield* CompletionCheck).run(`sleep ${TAG}207 & sleep ${TAG}208`, 60_000)
    }).pipe(Effect.provide(CompletionCheck.layerShell(tmpdir())))
    const fiber = Effect.runFork(long)
    await appears(`${TAG}208`)
    await Effect.runPromise(Fiber.interrupt(fiber))
    expect(await leftoversOf(`${TAG}20`)).toEqual([])
  }, 30_000)
})

describe("when the loopguard process leaves", () => {
  test("process.exit with a tool command still running kills its group (the exit hook)", async () => {
    const script = `
      import { runShell } from "@loopguard/effect/tools"
      void runShell("sleep ${TAG}301 & sleep ${TAG}302", { cwd: "/tmp", timeoutMs: 60_000 })
      process.stdin.once("data", () => process.exit(0))
    `
    const child = spawn(process.execPath, ["-e", script], { cwd: import.meta.dir, stdio: ["pipe", "pipe", "pipe"] })
    let stderr = ""
    child.stderr.on("data", (d) => (stderr += d))
    await appears(`${TAG}302`)
    expect(processesWith(`${TAG}301`).length).toBeGreaterThan(0)
    child.stdin.write("exit\n")
    const code = await new Promise<number | null>((done) => child.on("close", (c) => done(c)))
    expect(stderr).toBe("")
    expect(code).toBe(0)
    expect(await leftoversOf(`${TAG}30`)).toEqual([])
  }, 30_000)
})

describe("a whole run interrupted during a bash tool", () => {
  it.live("interrupting the RunLoop's fiber over HTTP kills the tool's process group", () => Effect.gen(function* () {
    const bash = {
      spec: { name: "bash", description: "run a command", inputSchema: { type: "object", properties: { command: { type: "string" } } } },
      stopsAtTimeout: true,
      run: async (input: Record<string, unknown>, signal: AbortSignal) => {
        const r = await runShell(String(input["command"]), { cwd: tmpdir(), timeoutMs: 60_000, signal })
        return { state: "completed" as const, output: r.output }
      }
    }
    const h = yield* harness([toolCallStream("bash", { command: `sleep ${TAG}501 & sleep ${TAG}502; echo` }), textStream("never")], { tools: [bash] })
    const controller = new AbortController()
    const running = h.run(
      Effect.gen(function* () {
        return yield* (yield* RunLoop).run({ sessionId: "s", prompt: "go" })
      }),
      { signal: controller.signal }
    )
    yield* Effect.promise(() => appears(`${TAG}502`))
    expect(processesWith(`${TAG}501`).length).toBeGreaterThan(0)
    controller.abort()
    yield* Effect.promise(() => running.catch(() => undefined))
    expect(yield* Effect.promise(() => leftoversOf(`${TAG}50`))).toEqual([])
    expect(h.server.requests).toHaveLength(1)
  }), 30_000)
})

describe("when the loopguard process is signalled", () => {
  // Run under Node: Bun runs exit handlers on a fatal signal by itself, Node does not, so only
  // there does the test show what loopguard's own signal hooks do.
  const dirs: Array<string> = []
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true })
  })
  const bundle = async (n: number): Promise<string> => {
    const dir = mkdtempSync(join(tmpdir(), "lg-signal-"))
    dirs.push(dir)
    const entry = join(dir, "entry.ts")
    const shell = join(import.meta.dir, "../packages/effect/src/tools/shell.ts")
    writeFileSync(entry, `import { runShell } from ${JSON.stringify(shell)}\nvoid runShell("sleep ${TAG}61${n} & sleep ${TAG}62${n}", { cwd: "/tmp", timeoutMs: 60_000 })\nconsole.log("tracked")\nsetInterval(() => {}, 1000)\n`)
    // The "bun" export condition points at the sources, so the test needs no prior `bun run build`.
    const built = await Bun.build({ entrypoints: [entry], target: "node", outdir: dir, conditions: ["bun"] })
    if (!built.success) throw new Error(built.logs.map(String).join("\n"))
    return join(dir, "entry.js")
  }

  for (const [signal, n] of [["SIGTERM", 1], ["SIGHUP", 2], ["SIGINT", 3]] as const) {
    test(`${signal} under Node with a tool command running kills its group, and the process still ends by the signal`, async () => {
      const child = spawn("node", [await bundle(n)], { stdio: ["ignore", "pipe", "pipe"] })
      // runShell has recorded the group (and installed the hooks) once the script says so.
      await new Promise<void>((ready) => child.stdout.on("data", (d) => String(d).includes("tracked") && ready()))
      await appears(`${TAG}62${n}`)
      expect(processesWith(`${TAG}61${n}`).length).toBeGreaterThan(0)
      child.kill(signal)
      const ended = await new Promise<{ code: number | null; signal: string | null }>((done) => child.on("close", (code, sig) => done({ code, signal: sig })))
      expect(ended).toEqual({ code: null, signal })
      expect([...(await leftoversOf(`${TAG}61${n}`)), ...(await leftoversOf(`${TAG}62${n}`))]).toEqual([])
    }, 30_000)
  }
})
