/**
 * An Effect runtime with two model providers, each under its own retry policy, given as a Layer.
 *
 * The runtime provides the shared services (config, tools, events, permission, session store)
 * once; each provider is `loopguardLayer(itsModel)` with its own `RetryCoordinator` Layer. Both
 * scripted servers fail their first requests with HTTP 500: the "patient" provider (3 retries,
 * 300 ms apart at first) gets through; the "strict" one (1 retry) gives up. The servers' own
 * records show which budget each provider used.
 *
 * Run: bun examples/effect-two-providers.ts   (or node --experimental-strip-types on Node >= 22
 * with the packages installed). Exits 0 when both servers saw what their budgets allow.
 */
import { layerOpenAICompatible } from "@loopguard/ai-sdk"
import { startScriptedServer, textStream, type ScriptedResponse } from "@loopguard/ai-sdk/testing"
import { ConfigService, Events, loopguardLayer, Permission, RetryCoordinator, RunLoop, SessionStore, Tools, type RetrySectionInput } from "@loopguard/effect"
import { Effect, Layer } from "effect"

const fail500: ScriptedResponse = { type: "error", status: 500 }

/** A scripted server that also notes when each request arrived. */
const serverWith = async (responses: ReadonlyArray<ScriptedResponse>) => {
  const arrivals: Array<number> = []
  const server = await startScriptedServer((_body, index) => {
    arrivals.push(performance.now())
    return responses[Math.min(index, responses.length - 1)]!
  })
  return { server, arrivals }
}

const patient = await serverWith([fail500, fail500, fail500, textStream("Patient provider: done.")])
const strict = await serverWith([fail500, fail500, textStream("Strict provider: done.")])

const shared = Layer.mergeAll(
  ConfigService.layer,
  Tools.layerNone,
  Layer.succeed(Events, Events.make(() => {})),
  Permission.layerDeny,
  SessionStore.layerMemory
)

const provider = (baseURL: string, modelId: string, id: string, retry: RetrySectionInput) =>
  loopguardLayer(layerOpenAICompatible({ baseURL, modelId, providerId: id })).pipe(Layer.provide(Layer.effect(RetryCoordinator, RetryCoordinator.make({ retry }))))

const patientLayer = provider(patient.server.baseURL, patient.server.modelId, "patient", {
  request: { maxRetries: 3, initialDelayMs: 300, jitterRatio: 0 }
})
const strictLayer = provider(strict.server.baseURL, strict.server.modelId, "strict", {
  request: { maxRetries: 1, initialDelayMs: 100, jitterRatio: 0 }
})

const ask = (sessionId: string) =>
  Effect.flatMap(RunLoop, (loop) => loop.run({ sessionId, prompt: "Summarise the failing test." })).pipe(
    Effect.map((r) => r.exit?.reason ?? "none")
  )

const program = Effect.all([ask("a").pipe(Effect.provide(patientLayer)), ask("b").pipe(Effect.provide(strictLayer))])

let exits: ReadonlyArray<string>
try {
  exits = await Effect.runPromise(program.pipe(Effect.provide(shared)))
} finally {
  await Promise.all([patient.server.close(), strict.server.close()])
}
const [patientExit = "none", strictExit = "none"] = exits

const gaps = (arrivals: ReadonlyArray<number>) => arrivals.slice(1).map((t, i) => Math.round(t - arrivals[i]!))
const report = (name: string, exit: string, seen: { server: { requests: ReadonlyArray<unknown> }; arrivals: ReadonlyArray<number> }) =>
  console.log(`${name}: exit ${exit}; the server saw ${seen.server.requests.length} requests, gaps ${gaps(seen.arrivals).join(", ")} ms`)
report("patient (3 retries from 300 ms)", patientExit, patient)
report("strict  (1 retry  from 100 ms)", strictExit, strict)

const ok =
  patientExit === "final" &&
  patient.server.requests.length === 4 &&
  gaps(patient.arrivals).every((g, i) => g >= 300 * 2 ** i - 10) &&
  strictExit === "model_error" &&
  strict.server.requests.length === 2
if (ok) console.log("OK: each provider retried under its own budget.")
else {
  console.error("FAILED: a provider did not use its own retry budget.")
  process.exitCode = 1
}
