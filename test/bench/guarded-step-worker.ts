/**
 * Runs inside one runtime (Bun from source, or Node from a bundle of this file): paired rounds
 * of (a) a bare AI SDK `streamText` consumer and (b) the full guarded step — SessionProcessor with
 * the default config (every default monitor), the real Events PubSub and the session store that
 * `loopguard run` uses by default (in memory; the SQLite store needs node:sqlite, Node >= 22.13) —
 * against the same HTTP stream served by the parent, and (c) a bare consumer of the SDK's
 * single-call primitive, which the guarded step calls itself (the floor of what it can cost).
 * Prints one JSON line with the times.
 *
 *   <runtime> guarded-step-worker ts|mjs BASE_URL MODEL ROUNDS [repeat-off]
 *
 * `repeat-off` runs the guarded side with `repeat.enabled = false`: what is left above bare is the
 * pipeline's own cost (parts mapping, reply building, events, store, stream stages), not the guard's.
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible"
import { layerOpenAICompatible } from "@loopguard/ai-sdk"
import { ConfigService, DEFAULT_CONFIG, Events, loopguardLayer, Permission, SessionProcessor, SessionStore, Tools } from "@loopguard/effect"
import { experimental_streamLanguageModelCall, streamText } from "ai"
import { Effect, Layer, ManagedRuntime } from "effect"

const [baseURL, modelId, roundsArg, repeatArg] = process.argv.slice(2)
const rounds = Number(roundsArg ?? 5)
const config = repeatArg === "repeat-off" ? { ...DEFAULT_CONFIG, repeat: { ...DEFAULT_CONFIG.repeat, enabled: false } } : DEFAULT_CONFIG

/** This process's CPU time (user + system) in ms: the server runs in the parent, so this is the consumer's own work. */
const cpuMs = () => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}

interface Sample {
  readonly wall: number
  readonly cpu: number
}

const timed = async (f: () => Promise<void>): Promise<Sample> => {
  const w = performance.now()
  const c = cpuMs()
  await f()
  return { wall: performance.now() - w, cpu: cpuMs() - c }
}

const bare = async (): Promise<void> => {
  const provider = createOpenAICompatible({ name: "bench", baseURL: baseURL!, includeUsage: true })
  const result = streamText({ model: provider.chatModel(modelId!), messages: [{ role: "user", content: "go" }], maxRetries: 0, onError: () => {} })
  let chars = 0
  for await (const part of result.fullStream) {
    if (part.type === "text-delta") chars += part.text.length
    else if (part.type === "error") throw part.error
  }
  if (chars === 0) throw new Error("bare consumer saw no text")
}

const bareCall = async (): Promise<void> => {
  const provider = createOpenAICompatible({ name: "bench", baseURL: baseURL!, includeUsage: true })
  const { stream } = await experimental_streamLanguageModelCall({ model: provider.chatModel(modelId!), messages: [{ role: "user", content: "go" }] })
  let chars = 0
  for await (const part of stream) {
    if (part.type === "text-delta") chars += part.text.length
    else if (part.type === "error") throw part.error
  }
  if (chars === 0) throw new Error("single-call consumer saw no text")
}

let session = 0

// The layers are built once, as a session builds them once for all its steps: a step's cost is
// what `process` does, not the services' construction (start-up is the run-vs-bare bench's).
const runtime = ManagedRuntime.make(
  loopguardLayer(
    Layer.mergeAll(
      layerOpenAICompatible({ baseURL: baseURL!, modelId: modelId!, providerId: "bench" }),
      Tools.layerNone,
      Layer.succeed(ConfigService, config),
      Events.layer,
      Permission.layerDeny,
      SessionStore.layerMemory
    )
  )
)

const guarded = async (): Promise<void> => {
  const sessionId = `s${session++}`
  const program = Effect.gen(function* () {
    const processor = yield* SessionProcessor
    return yield* processor.process({
      sessionId,
      parentId: "u",
      step: 0,
      request: { messages: [{ role: "user", text: "go" }], tools: [] },
      messageId: () => "a"
    })
  })
  const r = await runtime.runPromise(program)
  if (r.outcome.type !== "continue" || r.message.finish !== "stop") throw new Error(`unexpected outcome ${JSON.stringify(r.outcome)} finish ${r.message.finish}`)
}

{
  await bare()
  await guarded()
  await bareCall()
  const bareRuns: Array<Sample> = []
  const guardedRuns: Array<Sample> = []
  const callRuns: Array<Sample> = []
  for (let i = 0; i < rounds; i++) {
    // The order alternates within each round, so drift on a loaded machine hits every side alike.
    if (i % 2 === 0) {
      bareRuns.push(await timed(bare))
      guardedRuns.push(await timed(guarded))
      callRuns.push(await timed(bareCall))
    } else {
      callRuns.push(await timed(bareCall))
      guardedRuns.push(await timed(guarded))
      bareRuns.push(await timed(bare))
    }
  }
  console.log(JSON.stringify({ bareRuns, guardedRuns, callRuns }))
  await runtime.dispose()
}
