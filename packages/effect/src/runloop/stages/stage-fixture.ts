/**
 * Test wiring for single stages: real memory store and event log, a processor that answers from a
 * function, and a fixed goal gate / completion check. Not exported from the package.
 */
import type { AssistantMessage, AssistantPart } from "@loopguard/core/model"
import type { GoalVerdict } from "@loopguard/core/gate"
import { Effect } from "effect"
import { DEFAULT_CONFIG } from "../../config/defaults.js"
import type { LoopguardConfig } from "../../config/schema.js"
import type { LoopguardEvent } from "../../events/Events.js"
import type { ProcessInput, ProcessResult, StepOutcome } from "../../processor/SessionProcessor.js"
import { makeMemoryStore } from "../../store/SessionStore.js"
import { localToolsOf } from "../local-tools.js"
import { makeRunContext, type RunContext, type RunServices } from "../run-context.js"
import type { RunInput } from "../run-types.js"
import type { SessionStoreError } from "../../store/SessionStoreError.js"

export interface StageFixture {
  readonly s: RunServices
  readonly events: Array<LoopguardEvent>
  readonly processed: Array<ProcessInput>
  readonly context: (input?: Partial<RunInput>) => Effect.Effect<RunContext, SessionStoreError>
}

export const stageFixture = (
  options: {
    readonly config?: (c: LoopguardConfig) => LoopguardConfig
    readonly process?: (input: ProcessInput) => Effect.Effect<ProcessResult, SessionStoreError>
    readonly verdict?: GoalVerdict
    readonly checkOk?: boolean
  } = {}
): StageFixture => {
  const config = (options.config ?? ((c) => c))(structuredClone(DEFAULT_CONFIG))
  const events: Array<LoopguardEvent> = []
  const processed: Array<ProcessInput> = []
  const store = makeMemoryStore()
  const s: RunServices = {
    config,
    store,
    events: { publish: (e) => Effect.sync(() => void events.push(e)), subscribe: undefined as never },
    processor: {
      process: (input) =>
        Effect.suspend(() => {
          processed.push(input)
          return options.process ? options.process(input) : Effect.succeed(processResult(reply([{ type: "text", text: "done" }], { parentId: input.parentId })))
        })
    },
    tools: { specs: [{ name: "bash", description: "run", inputSchema: { type: "object" } }], execute: () => Effect.die("no tools in stage tests") },
    goalGate: { judge: () => Effect.succeed(options.verdict ?? { met: true, understood: true, reason: "ok" }) },
    completionCheck: { run: () => Effect.succeed({ ok: options.checkOk ?? true, exitCode: options.checkOk === false ? 1 : 0, output: "" }) },
    modelId: "scripted-model",
    compactor: { summarise: () => Effect.succeed({ summary: "summary of the older steps" }) },
    price: null,
    fallback: null
  }
  return {
    s,
    events,
    processed,
    context: (input = {}) =>
      Effect.map(store.messages(input.sessionId ?? "s"), (history) => {
        const full = { sessionId: "s", ...input }
        return makeRunContext(s, full, history, (context) => localToolsOf(s, full, undefined, context))
      })
  }
}

export const reply = (parts: ReadonlyArray<AssistantPart>, extra: Partial<AssistantMessage> = {}): AssistantMessage => ({
  role: "assistant",
  id: "s:a1",
  parentId: "",
  parts,
  finish: "stop",
  step: 0,
  usage: { inputTokens: 10, outputTokens: 5 },
  ...extra
})

export const processResult = (message: AssistantMessage, outcome: StepOutcome = { type: "continue" }, attempts = 1): ProcessResult => ({
  message,
  outcome,
  attempts,
  incidents: []
})
