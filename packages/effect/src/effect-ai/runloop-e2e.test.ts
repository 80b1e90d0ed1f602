import { describe, expect, test } from "bun:test"
import { Effect, Layer } from "effect"
import { ConfigService } from "../config/ConfigService.js"
import { DEFAULT_CONFIG } from "../config/defaults.js"
import { Events, type LoopguardEvent } from "../events/Events.js"
import { loopguardLayer } from "../layers.js"
import { Permission } from "../processor/ToolGate.js"
import { RunLoop } from "../runloop/RunLoop.js"
import { SessionStore } from "../store/SessionStore.js"
import { Tools, type ToolDefinition } from "../tools/Tools.js"
import { layerFromEffectAi } from "./effect-ai-llm.js"
import { makeFakeModel, textTurn, toolTurn, type ScriptedTurn } from "./fake-model.js"

const ran: Array<string> = []
const bash: ToolDefinition = {
  spec: { name: "bash", description: "run a command", inputSchema: { type: "object", properties: { command: { type: "string" } } } },
  run: async (input) => {
    ran.push(String(input["command"]))
    return { state: "completed", output: `ran ${String(input["command"])}`, exitCode: 0 }
  }
}

/** The real loopguard services over the Effect AI backend and a scripted model. */
const runSession = async (script: ReadonlyArray<ScriptedTurn>) => {
  const fake = makeFakeModel(script)
  const events: Array<LoopguardEvent> = []
  const configLayer = Layer.succeed(ConfigService, structuredClone(DEFAULT_CONFIG))
  const deps = Layer.mergeAll(
    layerFromEffectAi({ providerId: "fake", modelId: "fake-1" }).pipe(Layer.provide(fake.layer)),
    Layer.effect(Tools, Tools.make([bash])).pipe(Layer.provide(configLayer)),
    configLayer,
    Layer.succeed(Events, Events.make((event) => void events.push(event))),
    Permission.layerAllow,
    SessionStore.layerMemory
  )
  const program = Effect.gen(function* () {
    return yield* (yield* RunLoop).run({ sessionId: "s", prompt: "List the files, then say done." })
  })
  const result = await Effect.runPromise(Effect.provide(program, loopguardLayer(deps)))
  return { result, calls: fake.calls, events }
}

describe("RunLoop over the Effect AI backend", () => {
  test("a tool call, its result sent back, then an answer: final", async () => {
    ran.length = 0
    const { result, calls } = await runSession([toolTurn("c1", "bash", { command: "ls" }), textTurn(["All ", "done."])])
    expect(result.report.reason).toBe("final")
    expect(result.report.stepsUsed).toBe(2)
    expect(ran).toEqual(["ls"])
    expect(calls).toHaveLength(2)
    // The second request carries the call and its result, as Effect AI prompt messages.
    const second = calls[1]!.prompt.content
    expect(second.map((m) => m.role)).toEqual(["user", "assistant", "tool"])
    expect(second[2]!.content).toMatchObject([{ type: "tool-result", id: "c1", name: "bash", result: "ran ls", isFailure: false }])
  })
})
