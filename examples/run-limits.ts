/**
 * Ending a run from outside its steps: the whole-run wall clock (`loop.maxWallMs`) and the caller's
 * AbortSignal. Both interrupt the running step wherever it is (here: a reply that stalls), close the
 * HTTP request, and still end in one report — `time_limit` and `cancelled`.
 *
 * Run: bun examples/run-limits.ts   (or node --experimental-strip-types on Node >= 22)
 */
import { layerOpenAICompatible } from "@loopguard/ai-sdk"
import { startScriptedServer, type ScriptedResponse } from "@loopguard/ai-sdk/testing"
import { ConfigService, DEFAULT_CONFIG, Events, loopguardLayer, Permission, RunLoop, SessionStore, Tools, type RunInput } from "@loopguard/effect"
import { Effect, Layer } from "effect"

/** A reply that says a few words and then goes silent. */
const stalls: ScriptedResponse = { type: "stream", chunks: [{ text: "Let me think about this" }, { text: " for a long while" }], finish: "stop", stallAfterChunks: 1 }

/** One run against a fresh scripted server; what the report said and whether the server saw the client close. */
const runOnce = async (input: Omit<RunInput, "sessionId" | "prompt">, maxWallMs: number | null) => {
  const server = await startScriptedServer([stalls])
  try {
    const deps = Layer.mergeAll(
      layerOpenAICompatible({ baseURL: server.baseURL, modelId: server.modelId }),
      Tools.layerNone,
      Layer.succeed(ConfigService, { ...DEFAULT_CONFIG, loop: { ...DEFAULT_CONFIG.loop, maxWallMs } }),
      Layer.succeed(Events, Events.make(() => {})),
      Permission.layerDeny,
      SessionStore.layerMemory
    )
    const run = Effect.gen(function* () {
      return yield* (yield* RunLoop).run({ sessionId: "limits", prompt: "Explain the failing build", ...input })
    })
    const { report } = await Effect.runPromise(run.pipe(Effect.provide(loopguardLayer(deps))))
    await server.requests[0]?.done
    return { reason: report.reason, error: report.error?.message ?? "", closed: server.requests[0]?.closedEarly === true }
  } finally {
    await server.close()
  }
}

const timed = await runOnce({}, 500)
console.log(`loop.maxWallMs = 500: run ended "${timed.reason}" (${timed.error}); request closed: ${timed.closed}`)

const controller = new AbortController()
setTimeout(() => controller.abort(), 300)
const cancelled = await runOnce({ signal: controller.signal }, null)
console.log(`AbortSignal after 300 ms: run ended "${cancelled.reason}" (${cancelled.error}); request closed: ${cancelled.closed}`)

if (!(timed.reason === "time_limit" && timed.closed && cancelled.reason === "cancelled" && cancelled.closed)) {
  console.error("run-limits: the runs did not end from outside as expected")
  process.exit(1)
}
console.log("ok: both limits interrupted the stalled step and each run still ended in its report")
