/** Each service's `make` constructor, and the Layer names used before it, which stay for one release. */
import { describe, expect, test } from "bun:test"
import { Effect, Layer } from "effect"
import { ConfigService } from "./config/ConfigService.js"
import { Events, type LoopguardEvent } from "./events/Events.js"
import { CompletionCheck } from "./gate/CompletionCheck.js"
import { GoalGate } from "./gate/GoalGate.js"
import { Permission } from "./processor/ToolGate.js"
import { Tools, type ToolDefinition } from "./tools/Tools.js"

const event: LoopguardEvent = { type: "step.started", step: 1, attempt: 1 }
const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(effect)

describe("make and the deprecated layer names build the same service", () => {
  test("Events: make(onEvent), layerCollect(sink), layerCallback(f)", async () => {
    const seen: Array<string> = []
    const collected: Array<LoopguardEvent> = []
    const layers = [
      Layer.succeed(Events, Events.make((e) => void seen.push(`make:${e.type}`))),
      Events.layerCollect(collected),
      Events.layerCallback((e) => void seen.push(`callback:${e.type}`))
    ]
    for (const layer of layers) await run(Effect.provide(Effect.flatMap(Events, (events) => events.publish(event)), layer))
    expect(seen).toEqual(["make:step.started", "callback:step.started"])
    expect(collected).toEqual([event])
  })

  test("Permission, GoalGate and CompletionCheck: make(f) and layerFrom(f)", async () => {
    const ask = () => Effect.succeed("allow" as const)
    const judge = () => Effect.succeed({ met: true, reason: "done", understood: true })
    const check = (command: string) => ({ ok: command === "true", exitCode: command === "true" ? 0 : 1, output: command })
    for (const layer of [Layer.succeed(Permission, Permission.make(ask)), Permission.layerFrom(ask)]) {
      const answer = await run(Effect.provide(Effect.flatMap(Permission, (p) => p.ask({ kind: "doom-loop", tool: "t", input: {}, step: 1 })), layer))
      expect(answer).toBe("allow")
    }
    for (const layer of [Layer.succeed(GoalGate, GoalGate.make(judge)), GoalGate.layerFrom(judge)]) {
      const verdict = await run(Effect.provide(Effect.flatMap(GoalGate, (g) => g.judge({ goal: "g", answer: "a", work: [] })), layer))
      expect(verdict.met).toBe(true)
    }
    for (const layer of [Layer.succeed(CompletionCheck, CompletionCheck.make(check)), CompletionCheck.layerFrom(check)]) {
      const result = await run(Effect.provide(Effect.flatMap(CompletionCheck, (c) => c.run("false", 1_000)), layer))
      expect(result).toEqual({ ok: false, exitCode: 1, output: "false" })
    }
  })

  test("Tools: make(definitions) reads the ConfigService, like layerFrom", async () => {
    const echo: ToolDefinition = {
      spec: { name: "echo", description: "echo", inputSchema: { type: "object", properties: {} } },
      run: async (input) => ({ state: "completed", output: JSON.stringify(input) })
    }
    for (const layer of [Layer.effect(Tools, Tools.make([echo])), Tools.layerFrom([echo])]) {
      const result = await run(
        Effect.provide(Effect.flatMap(Tools, (tools) => tools.execute({ id: "c1", name: "echo", input: { a: 1 } })), layer.pipe(Layer.provide(ConfigService.layer)))
      )
      expect(result).toMatchObject({ state: "completed", output: '{"a":1}' })
    }
  })
})
