import { describe, expect, test } from "bun:test"
import { makeRedactor } from "@loopguard/core/try-best"
import { Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { makeTools, Tools, type EffectToolDefinition, type ToolDefinition } from "./Tools.js"
import { ConfigService } from "../config/ConfigService.js"
import { DEFAULT_CONFIG } from "../config/defaults.js"

/** Runs `effect` on the TestClock: time moves only by `TestClock.adjust`. */
const onTestClock = <A, E>(effect: Effect.Effect<A, E>): Promise<A> => Effect.runPromise(Effect.provide(effect, TestClock.layer()))

const spec = { name: "t", description: "", inputSchema: {} }
const call = { id: "c", name: "t", input: {} }

describe("Tools.execute", () => {
  test("the time authorize takes (a person answering) is not counted against the timeout", () =>
    onTestClock(
      Effect.gen(function* () {
        let ran = false
        let answer: (a: { allowed: true }) => void = () => {}
        const tool: ToolDefinition = {
          spec,
          authorize: () => new Promise((r) => (answer = r)),
          run: async () => ((ran = true), { state: "completed", output: "done" })
        }
        const execution = yield* Effect.forkChild(makeTools([tool], 100).execute(call))
        // The person takes three times the tool's timeout to answer.
        yield* TestClock.adjust("300 millis")
        expect(execution.pollUnsafe()).toBeUndefined()
        answer({ allowed: true })
        expect(yield* Fiber.join(execution)).toEqual({ state: "completed", output: "done" })
        expect(ran).toBe(true)
      })
    ), 30_000)

  test("a refusal is the tool's error result and the tool does not run", async () => {
    let ran = false
    const tool: ToolDefinition = {
      spec,
      authorize: async () => ({ allowed: false, reason: "not now" }),
      run: async () => ((ran = true), { state: "completed", output: "done" })
    }
    expect(await Effect.runPromise(makeTools([tool], 1_000).execute(call))).toEqual({ state: "error", output: "", error: "not now", notRun: true })
    expect(ran).toBe(false)
  })

  test("results are redacted before anyone sees them", async () => {
    const tool: ToolDefinition = { spec, run: async () => ({ state: "completed", output: "key=tools-secret-99 Authorization: Bearer ab.cd-12" }) }
    const r = await Effect.runPromise(makeTools([tool], 1_000, makeRedactor(["tools-secret-99"])).execute(call))
    expect(r.output).toBe("key=[REDACTED] Authorization: Bearer [REDACTED]")
  })

  // Effect's timers handle long durations themselves (unlike a bare setTimeout, see runShell).
  test("a timeout above 2^31−1 ms does not cut a tool at once", async () => {
    const tool: ToolDefinition = { spec, run: () => new Promise((r) => setTimeout(() => r({ state: "completed", output: "late" }), 200)) }
    expect(await Effect.runPromise(makeTools([tool], 2 ** 31).execute(call))).toEqual({ state: "completed", output: "late" })
  }, 30_000)

  test("a tool that does not stop itself is cut at the timeout", () =>
    onTestClock(
      Effect.gen(function* () {
        const tool: ToolDefinition = { spec, run: () => new Promise(() => {}) }
        const execution = yield* Effect.forkChild(makeTools([tool], 100).execute(call))
        yield* TestClock.adjust("99 millis")
        expect(execution.pollUnsafe()).toBeUndefined()
        yield* TestClock.adjust("1 millis")
        expect((yield* Fiber.join(execution)).error).toBe("tool t timed out after 100 ms")
      })
    ), 30_000)
})

describe("Effect tools beside Promise tools", () => {
  test("an Effect handler's result is the call's; a typed failure and a throw while building it are error results", async () => {
    const effectTool = (handler: EffectToolDefinition["handler"]): EffectToolDefinition => ({ spec, handler })
    const promiseTool: ToolDefinition = { spec: { ...spec, name: "p" }, run: async (input) => ({ state: "completed", output: `promise ${String(input["n"])}` }) }
    const ok = makeTools([effectTool((input) => Effect.succeed({ state: "completed", output: `effect ${String(input["n"])}` })), promiseTool], 1_000)
    expect(await Effect.runPromise(ok.execute({ id: "c", name: "t", input: { n: 1 } }))).toEqual({ state: "completed", output: "effect 1" })
    expect(await Effect.runPromise(ok.execute({ id: "c", name: "p", input: { n: 2 } }))).toEqual({ state: "completed", output: "promise 2" })
    const failing = makeTools([effectTool(() => Effect.fail(new Error("disk full")))], 1_000)
    expect(await Effect.runPromise(failing.execute(call))).toEqual({ state: "error", output: "", error: "disk full" })
    const throwing = makeTools([effectTool(() => { throw new Error("bad input") })], 1_000)
    expect(await Effect.runPromise(throwing.execute(call))).toEqual({ state: "error", output: "", error: "bad input" })
  })

  test("an Effect handler that does not finish is interrupted at the timeout: its finalizer runs, the call times out", async () => {
    let finalized = false
    const tool: EffectToolDefinition = { spec, handler: () => Effect.never.pipe(Effect.onInterrupt(() => Effect.sync(() => void (finalized = true)))) }
    const result = await Effect.runPromise(
      Effect.gen(function* () {
        const fiber = yield* Effect.forkChild(makeTools([tool], 100).execute(call))
        yield* TestClock.adjust(100)
        return yield* Fiber.join(fiber)
      }).pipe(Effect.provide(TestClock.layer()))
    )
    expect(result.error).toBe("tool t timed out after 100 ms")
    expect(finalized).toBe(true)
  })

  test("Tools.make takes both kinds under the configured timeout", async () => {
    const tool: EffectToolDefinition = { spec, handler: () => Effect.succeed({ state: "completed", output: "made" }) }
    const tools = await Effect.runPromise(Tools.make([tool]).pipe(Effect.provideService(ConfigService, DEFAULT_CONFIG)))
    expect(await Effect.runPromise(tools.execute(call))).toEqual({ state: "completed", output: "made" })
  })
})
