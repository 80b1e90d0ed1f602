/** The README's library example, run as written against the scripted server (so the docs cannot rot). */
import { layerOpenAICompatible } from "@loopguard/ai-sdk"
import { textStream } from "@loopguard/ai-sdk/testing"
import {
  ConfigService,
  Events,
  loopguardLayer,
  Permission,
  RunLoop,
  SessionStore,
  Tools,
  type ToolDefinition
} from "@loopguard/effect"
import { expect } from "bun:test"
import { Effect, Layer } from "effect"
import { it } from "./effect-test.js"
import { scriptedServer } from "./scoped-resources.js"

it.live("the README library example runs", () => Effect.gen(function* () {
  const server = yield* scriptedServer([textStream("Fixed.")])
  const myToolDefinitions: ReadonlyArray<ToolDefinition> = []
  const seen: Array<string> = []
  const deps = Layer.mergeAll(
    layerOpenAICompatible({ baseURL: server.baseURL, modelId: "my-model" }),
    Layer.effect(Tools, Tools.make(myToolDefinitions)).pipe(Layer.provide(ConfigService.layer)),
    ConfigService.layer,
    Layer.succeed(Events, Events.make((e) => void seen.push(e.type))),
    Permission.layerDeny,
    SessionStore.layerMemory
  )
  const program = Effect.gen(function* () {
    const { report } = yield* (yield* RunLoop).run({ sessionId: "s1", prompt: "Fix the failing test" })
    return report
  })
  const report = yield* Effect.promise(() => Effect.runPromise(program.pipe(Effect.provide(loopguardLayer(deps)))))
  expect(report.status).toBe("completed")
  expect(seen).toContain("run.finished")
}))
