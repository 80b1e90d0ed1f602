/**
 * Test wiring: the real services over the real AI SDK provider, talking HTTP to the scripted
 * server. Each test gets its own server, store and event log.
 */
import { layerOpenAICompatible, type EndpointOptions } from "@loopguard/ai-sdk"
import { startScriptedServer, type Script, type ScriptedServer } from "@loopguard/ai-sdk/testing"
import {
  ConfigService,
  DEFAULT_CONFIG,
  Events,
  FallbackLLM,
  LLM,
  loopguardLayer,
  Permission,
  RunLoop,
  SessionProcessor,
  SessionStore,
  ToolGate,
  Tools,
  type LlmShape,
  type LoopguardConfig,
  type LoopguardEvent,
  type SessionStoreError,
  type ToolDefinition
} from "@loopguard/effect"
import { Effect, Layer, type Scope } from "effect"

export interface Harness {
  readonly server: ScriptedServer
  readonly events: Array<LoopguardEvent>
  /** `signal` interrupts the run's fiber (as a library caller's interruption would). */
  readonly run: <A, E>(effect: Effect.Effect<A, E, HarnessServices>, options?: { readonly signal?: AbortSignal }) => Promise<A>
  /** `effect` with the harness's services, to run inside the test's own Effect (and fiber). */
  readonly provide: <A, E>(effect: Effect.Effect<A, E, HarnessServices>) => Effect.Effect<A, unknown>
  readonly close: () => Promise<void>
}

export type HarnessServices = RunLoop | SessionProcessor | SessionStore | Events

export type HarnessOptions = NonNullable<Parameters<typeof makeHarness>[1]>

export const makeHarness = async (
  script: Script,
  options: {
    readonly config?: (c: LoopguardConfig) => LoopguardConfig
    readonly tools?: ReadonlyArray<ToolDefinition>
    readonly permission?: Layer.Layer<Permission>
    readonly modelId?: string
    /** The scripted server sends no usage (as many local servers do not). */
    readonly omitUsage?: boolean
    /** Wraps the real HTTP-backed model (fault injection the wire protocol cannot express). */
    readonly decorate?: (llm: LlmShape) => LlmShape
    /** A FallbackLLM on the same server under this model id (the breaker's reroute target). */
    readonly fallbackModelId?: string
    /** The session store (default: a fresh in-memory one). */
    readonly store?: Layer.Layer<SessionStore, SessionStoreError>
    /** A ToolGate of the test's own (default: loopguard's doom-loop gate). */
    readonly toolGate?: Layer.Layer<ToolGate>
    /** Extra endpoint options (an API key, response limits). */
    readonly endpoint?: Pick<EndpointOptions, "apiKey" | "limits">
  } = {}
): Promise<Harness> => {
  const server = await startScriptedServer(script, { ...(options.modelId ? { modelId: options.modelId } : {}), ...(options.omitUsage === true ? { omitUsage: true } : {}) })
  const events: Array<LoopguardEvent> = []
  const config = (options.config ?? ((c) => c))(structuredClone(DEFAULT_CONFIG))
  const configLayer = Layer.succeed(ConfigService, config)
  const http = layerOpenAICompatible({ baseURL: server.baseURL, modelId: server.modelId, providerId: "scripted", ...options.endpoint })
  const decorate = options.decorate
  const llm = decorate
    ? Layer.effect(LLM, Effect.map(LLM, (inner: LlmShape) => LLM.of(decorate(inner)))).pipe(Layer.provide(http))
    : http
  const deps = Layer.mergeAll(
    llm,
    Layer.effect(Tools, Tools.make(options.tools ?? [])).pipe(Layer.provide(configLayer)),
    configLayer,
    Layer.succeed(Events, Events.make((event) => void events.push(event))),
    options.permission ?? Permission.layerDeny,
    options.store ?? SessionStore.layerMemory,
    options.toolGate ?? Layer.empty
  )
  const fallback = options.fallbackModelId
    ? FallbackLLM.fromLLM(layerOpenAICompatible({ baseURL: server.baseURL, modelId: options.fallbackModelId, providerId: "scripted" }))
    : Layer.empty
  const layer = loopguardLayer(Layer.merge(deps, fallback))
  return {
    server,
    events,
    run: (effect, options) => Effect.runPromise(Effect.provide(effect, layer) as Effect.Effect<never>, options?.signal ? { signal: options.signal } : undefined),
    provide: (effect) => Effect.provide(effect, layer),
    close: () => server.close()
  }
}

/** The harness as a scoped resource: its server closes when the test's scope does, even when the test fails. */
export const harness = (script: Script, options: HarnessOptions = {}): Effect.Effect<Harness, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.promise(() => makeHarness(script, options)),
    (h) => Effect.promise(() => h.close())
  )

/** A config with retries off, so a fault shows up as the step's error at once. */
export const noRetries = (c: LoopguardConfig): LoopguardConfig => ({
  ...c,
  retry: Object.fromEntries(
    ["request", "stream", "maxCandidate", "maxJudge", "network", "server", "unknown", "rateLimit"].map((k) => [k, { maxRetries: 0 }])
  ) as LoopguardConfig["retry"]
})
