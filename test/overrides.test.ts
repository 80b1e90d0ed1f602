/**
 * Every service a runtime may replace, replaced, over HTTP: the real AI SDK provider talks to the
 * scripted server, and each test judges the override from the server's side (which requests it
 * saw, what they carried, how far apart they arrived). Gaps are only ever checked from below, so
 * a loaded machine cannot make them fail.
 */
import { layerOpenAICompatible } from "@loopguard/ai-sdk"
import { startScriptedServer, textStream, toolCallStream, type ScriptedResponse, type ScriptedServer } from "@loopguard/ai-sdk/testing"
import {
  CompletionCheck,
  ConfigService,
  DEFAULT_CONFIG,
  Events,
  GoalGate,
  LLM,
  loopguardLayer,
  makeMemoryStore,
  Permission,
  RetryCoordinator,
  RunLoop,
  SessionStore,
  ToolGate,
  Tools,
  type LoopguardConfig,
  type LoopguardEvent,
  type ToolDefinition
} from "@loopguard/effect"
import { afterEach, describe, expect, test } from "bun:test"
import { Effect, Layer } from "effect"

const TIMEOUT = 30_000

interface Served {
  readonly server: ScriptedServer
  /** `performance.now()` when each chat request reached the script. */
  readonly arrivals: Array<number>
  /** The serialized body of each chat request. */
  readonly bodies: () => Array<string>
}

const open: Array<ScriptedServer> = []
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()))
})

/** A scripted server that records arrival times; past the end of `responses` it repeats the last one. */
const serve = async (responses: ReadonlyArray<ScriptedResponse>): Promise<Served> => {
  const arrivals: Array<number> = []
  const server = await startScriptedServer((_body, index) => {
    arrivals.push(performance.now())
    return responses[Math.min(index, responses.length - 1)]!
  })
  open.push(server)
  return { server, arrivals, bodies: () => server.requests.map((r) => JSON.stringify(r.body)) }
}

const gaps = (arrivals: ReadonlyArray<number>) => arrivals.slice(1).map((t, i) => t - arrivals[i]!)

const http = (served: Served, providerId = "scripted") =>
  layerOpenAICompatible({ baseURL: served.server.baseURL, modelId: served.server.modelId, providerId })

const configWith = (patch: (c: LoopguardConfig) => LoopguardConfig) => Layer.succeed(ConfigService, patch(structuredClone(DEFAULT_CONFIG)))

const e500: ScriptedResponse = { type: "error", status: 500 }

/** One user turn through RunLoop; the exit reason. */
const turn = (prompt = "go") => Effect.map(Effect.flatMap(RunLoop, (loop) => loop.run({ sessionId: "s", prompt })), (r) => r.exit?.reason ?? null)

/** Every dependency at its plain default, each replaceable. */
const deps = (
  served: Served,
  o: {
    readonly tools?: Layer.Layer<Tools>
    readonly config?: Layer.Layer<ConfigService>
    readonly permission?: Layer.Layer<Permission>
  } = {}
) =>
  Layer.mergeAll(
    http(served),
    o.tools ?? Tools.layerNone,
    o.config ?? ConfigService.layer,
    Layer.succeed(Events, Events.make(() => {})),
    o.permission ?? Permission.layerDeny,
    SessionStore.layerMemory
  )

const lookupTool = (output: string): ToolDefinition => ({
  spec: { name: "lookup", description: "look something up", inputSchema: { type: "object", properties: { q: { type: "string" } } } },
  run: async () => ({ state: "completed", output })
})

describe("services given in deps take effect", () => {
  test(
    "Tools: the runtime's tool runs and its result reaches the model",
    async () => {
      const served = await serve([toolCallStream("lookup", { q: "x" }), textStream("done")])
      const tools = Layer.effect(Tools, Tools.make([lookupTool("result-from-runtime-tool")])).pipe(Layer.provide(ConfigService.layer))
      const reason = await Effect.runPromise(turn().pipe(Effect.provide(loopguardLayer(deps(served, { tools })))))
      expect(reason).toBe("final")
      expect(served.server.requests).toHaveLength(2)
      expect(served.bodies()[1]).toContain("result-from-runtime-tool")
    },
    TIMEOUT
  )

  test(
    "Permission: allowing a doom loop lets its tools run; the default (deny) stops the step",
    async () => {
      const threeSame = [1, 2, 3].map((i) => ({ toolCall: { id: `c${i}`, name: "lookup", arguments: '{"q":"same"}' } }))
      const script: ReadonlyArray<ScriptedResponse> = [{ type: "stream", chunks: threeSame }, textStream("done")]
      const interactive = configWith((c) => ({ ...c, loop: { ...c.loop, interactive: true } }))
      const tools = Layer.effect(Tools, Tools.make([lookupTool("looked-up")])).pipe(Layer.provide(ConfigService.layer))
      const run = async (permission: Layer.Layer<Permission>) => {
        const served = await serve(script)
        const reason = await Effect.runPromise(turn().pipe(Effect.provide(loopguardLayer(deps(served, { tools, config: interactive, permission })))))
        return { reason, requests: served.server.requests.length, bodies: served.bodies() }
      }
      const asked: Array<string> = []
      const allowed = await run(Layer.succeed(Permission, Permission.make((r) => Effect.sync(() => (asked.push(r.tool), "allow" as const)))))
      expect(asked).toEqual(["lookup"])
      expect(allowed.requests).toBe(2)
      expect(allowed.bodies[1]!.split("looked-up").length - 1).toBe(3)
      const denied = await run(Permission.layerDeny)
      expect(denied.requests).toBe(1)
      expect(denied.reason).not.toBe("final")
    },
    TIMEOUT
  )

  test(
    "RetryCoordinator in deps replaces the budgets from config",
    async () => {
      const served = await serve([e500, e500, textStream("ok")])
      const retry = Layer.effect(RetryCoordinator, RetryCoordinator.make({ retry: { request: { maxRetries: 1, initialDelayMs: 250, jitterRatio: 0 } } }))
      const layer = loopguardLayer(Layer.merge(deps(served), retry))
      const reason = await Effect.runPromise(turn().pipe(Effect.provide(layer)))
      expect(served.server.requests).toHaveLength(2)
      expect(gaps(served.arrivals)[0]).toBeGreaterThanOrEqual(240)
      expect(reason).toBe("model_error")
    },
    TIMEOUT
  )
})

describe("services provided around loopguardLayer take effect", () => {
  test(
    "RetryCoordinator: the runtime's budgets, not the built-in ones",
    async () => {
      const script = [e500, e500, textStream("ok")]
      // Built-in request budget (4 retries) gets through two 500s.
      const plain = await serve(script)
      expect(await Effect.runPromise(turn().pipe(Effect.provide(loopguardLayer(deps(plain)))))).toBe("final")
      expect(plain.server.requests).toHaveLength(3)

      const served = await serve(script)
      const retry = Layer.effect(RetryCoordinator, RetryCoordinator.make({ retry: { request: { maxRetries: 1, initialDelayMs: 300, jitterRatio: 0 } } }))
      const reason = await Effect.runPromise(turn().pipe(Effect.provide(loopguardLayer(deps(served))), Effect.provide(retry)))
      expect(reason).toBe("model_error")
      expect(served.server.requests).toHaveLength(2)
      expect(gaps(served.arrivals)[0]).toBeGreaterThanOrEqual(290)
    },
    TIMEOUT
  )

  test(
    "GoalGate: the runtime's judge is asked, and the model never sees the built-in evaluator",
    async () => {
      const served = await serve([textStream("first answer"), textStream("second answer")])
      const verdicts = [
        { met: false, reason: "the runtime judge wants a changelog entry", understood: true },
        { met: true, reason: "ok", understood: true }
      ]
      const judged: Array<string> = []
      const gate = Layer.succeed(GoalGate, GoalGate.make((input) => Effect.sync(() => (judged.push(input.answer), verdicts[judged.length - 1]!))))
      const config = configWith((c) => ({ ...c, goalGate: { ...c.goalGate, enabled: true } }))
      const reason = await Effect.runPromise(turn().pipe(Effect.provide(loopguardLayer(deps(served, { config }))), Effect.provide(gate)))
      expect(reason).toBe("final")
      expect(judged).toEqual(["first answer", "second answer"])
      expect(served.server.requests).toHaveLength(2)
      expect(served.bodies()[1]).toContain("the runtime judge wants a changelog entry")
      expect(served.bodies().some((b) => b.includes("strict evaluator"))).toBe(false)
    },
    TIMEOUT
  )

  test(
    "CompletionCheck: the runtime's check decides, and no shell command runs",
    async () => {
      const served = await serve([textStream("claimed done"), textStream("really done")])
      const results = [
        { ok: false, exitCode: 1, output: "runtime check: 2 tests failing" },
        { ok: true, exitCode: 0, output: "" }
      ]
      const commands: Array<string> = []
      const check = Layer.succeed(CompletionCheck, CompletionCheck.make((command) => (commands.push(command), results[commands.length - 1]!)))
      const config = configWith((c) => ({ ...c, completionCheck: { ...c.completionCheck, command: "exit 7" } }))
      const reason = await Effect.runPromise(turn().pipe(Effect.provide(loopguardLayer(deps(served, { config }))), Effect.provide(check)))
      expect(reason).toBe("final")
      expect(commands).toEqual(["exit 7", "exit 7"])
      expect(served.server.requests).toHaveLength(2)
      expect(served.bodies()[1]).toContain("runtime check: 2 tests failing")
    },
    TIMEOUT
  )

  test(
    "ToolGate: the runtime's gate refuses a call; the tool never runs and the step stops",
    async () => {
      const served = await serve([toolCallStream("lookup", { q: "x" }), textStream("done")])
      let ran = 0
      const tools = Layer.effect(Tools, Tools.make([{ ...lookupTool("ran"), run: async () => (ran++, { state: "completed", output: "ran" }) }])).pipe(
        Layer.provide(ConfigService.layer)
      )
      const gate = Layer.succeed(ToolGate, ToolGate.of({ beforeCall: (_reply, call) => Effect.succeed({ _tag: "deny", reason: `runtime policy: no ${call.name}` }) }))
      const reason = await Effect.runPromise(turn().pipe(Effect.provide(loopguardLayer(deps(served, { tools }))), Effect.provide(gate)))
      expect(ran).toBe(0)
      expect(served.server.requests).toHaveLength(1)
      expect(reason).not.toBe("final")
    },
    TIMEOUT
  )

  test(
    "LLM, Config, Events and SessionStore left out of deps come from the surrounding runtime",
    async () => {
      const served = await serve([e500, textStream("continued")])
      const store = makeMemoryStore()
      await Effect.runPromise(
        Effect.all([
          store.append("s", { role: "user", id: "old-u", text: "an earlier question kept by the runtime's store" }),
          store.append("s", {
            role: "assistant",
            id: "old-a",
            parentId: "old-u",
            step: 0,
            model: "m",
            parts: [{ type: "text", text: "an earlier answer" }],
            finish: "stop"
          })
        ])
      )
      const events: Array<LoopguardEvent> = []
      // The provider id picks `provider.<id>.retry` from the runtime's config: 0 request retries there.
      const config = configWith((c) => ({ ...c, provider: { "runtime-llm": { retry: { request: { maxRetries: 0 } } } } }))
      const around = Layer.mergeAll(http(served, "runtime-llm"), config, Layer.succeed(Events, Events.make((event) => void events.push(event))), Layer.succeed(SessionStore, store))
      const inner = Layer.mergeAll(Tools.layerNone, Permission.layerDeny)
      const reason = await Effect.runPromise(turn("next question").pipe(Effect.provide(loopguardLayer(inner)), Effect.provide(around)))
      expect(reason).toBe("model_error")
      expect(served.server.requests).toHaveLength(1)
      expect(served.bodies()[0]).toContain("an earlier question kept by the runtime's store")
      expect(events.filter((e) => e.type === "step.started")).toHaveLength(served.server.requests.length)
      // The runtime's Events heard the run: one step start per request the server saw, and the end.
      expect(events.at(-1)?.type).toBe("run.finished")
      const kept = await Effect.runPromise(store.messages("s"))
      expect(kept.map((m) => m.id).slice(0, 2)).toEqual(["old-u", "old-a"])
      expect(kept.length).toBeGreaterThan(2)
    },
    TIMEOUT
  )
})

describe("nothing in deps: every dependency from the surrounding runtime", () => {
  test(
    "Tools and Permission provided around: the allowed doom loop runs the runtime's tool",
    async () => {
      const threeSame = [1, 2, 3].map((i) => ({ toolCall: { id: `c${i}`, name: "lookup", arguments: '{"q":"same"}' } }))
      const served = await serve([{ type: "stream", chunks: threeSame }, textStream("done")])
      const config = configWith((c) => ({ ...c, loop: { ...c.loop, interactive: true } }))
      const asked: Array<string> = []
      const around = Layer.mergeAll(
        http(served),
        Layer.effect(Tools, Tools.make([lookupTool("from-the-runtime")])).pipe(Layer.provide(config)),
        config,
        Layer.succeed(Events, Events.make(() => {})),
        Layer.succeed(Permission, Permission.make((r) => Effect.sync(() => (asked.push(r.tool), "allow" as const)))),
        SessionStore.layerMemory
      )
      const reason = await Effect.runPromise(turn().pipe(Effect.provide(loopguardLayer(Layer.empty)), Effect.provide(around)))
      expect(reason).toBe("final")
      expect(asked).toEqual(["lookup"])
      expect(served.server.requests).toHaveLength(2)
      expect(served.bodies()[1]!.split("from-the-runtime").length - 1).toBe(3)
    },
    TIMEOUT
  )
})

describe("per-provider policy as a Layer", () => {
  test(
    "two providers in one runtime, each with its own retry budgets (one nested inside the other)",
    async () => {
      const slow = await serve([e500])
      const quick = await serve([e500])
      const shared = Layer.mergeAll(Tools.layerNone, ConfigService.layer, Layer.succeed(Events, Events.make(() => {})), Permission.layerDeny, SessionStore.layerMemory)
      const providerA = loopguardLayer(http(slow, "a")).pipe(
        Layer.provide(Layer.effect(RetryCoordinator, RetryCoordinator.make({ retry: { request: { maxRetries: 1, initialDelayMs: 400, jitterRatio: 0 } } })))
      )
      const providerB = loopguardLayer(http(quick, "b")).pipe(
        Layer.provide(Layer.effect(RetryCoordinator, RetryCoordinator.make({ retry: { request: { maxRetries: 3, initialDelayMs: 100, jitterRatio: 0 } } })))
      )
      const program = Effect.gen(function* () {
        const a = yield* turn()
        const b = yield* turn().pipe(Effect.provide(providerB))
        return [a, b]
      })
      const reasons = await Effect.runPromise(program.pipe(Effect.provide(providerA), Effect.provide(shared)))
      expect(reasons).toEqual(["model_error", "model_error"])
      expect(slow.server.requests).toHaveLength(2)
      expect(quick.server.requests).toHaveLength(4)
      expect(gaps(slow.arrivals)[0]).toBeGreaterThanOrEqual(390)
      const [g1, g2, g3] = gaps(quick.arrivals)
      expect(g1).toBeGreaterThanOrEqual(95)
      expect(g2).toBeGreaterThanOrEqual(195)
      expect(g3).toBeGreaterThanOrEqual(395)
    },
    TIMEOUT
  )
})

// Compile-time: a dependency left out of deps becomes a requirement of the result.
const _missingConfig: Layer.Layer<RunLoop, never, ConfigService> = loopguardLayer(
  Layer.mergeAll(Tools.layerNone, Layer.succeed(Events, Events.make(() => {})), Permission.layerDeny, SessionStore.layerMemory, Layer.succeed(LLM, {} as never))
)
void _missingConfig
