/**
 * The session model: what the SessionStore keeps and what the classifier and the cross-step
 * detectors read. Append-only: exclusions and synthetic markers are recorded, never deletions.
 */
import { callInputKey, jobAgnosticInputKey } from "./call-key.js"
import type { FinishReason, NormalizedError, Usage } from "./stream.js"

export type ToolState = "pending" | "running" | "completed" | "error"

export interface TextPart {
  readonly type: "text"
  readonly text: string
  /** Written by loopguard, not the model (e.g. the try-best pause notice). */
  readonly synthetic?: boolean
  readonly metadata?: Readonly<Record<string, unknown>>
}

export interface ReasoningPart {
  readonly type: "reasoning"
  readonly text: string
}

export interface ToolPart {
  readonly type: "tool"
  readonly callId: string
  readonly name: string
  readonly input: unknown
  readonly state: ToolState
  readonly output?: string
  /** Exit status for shell-like tools. */
  readonly exitCode?: number
  /** Error message when state = error. */
  readonly error?: string
  /** For edit tools: the file touched and the change as a unified diff. */
  readonly path?: string
  readonly diff?: string
  /** Executed by the provider (not by us): never holds the loop waiting. */
  readonly providerExecuted?: boolean
  /**
   * The call was answered without running (refused by a cap, the breaker's cooldown, a gate, a
   * person's no, cut-off arguments): `error` says why. Nothing it would have done happened.
   */
  readonly notRun?: boolean
}

export type AssistantPart = TextPart | ReasoningPart | ToolPart

/** Why a reply is left out of every later request (it stays in the store). */
export type ExclusionReason = "text-tool-call" | "rollback" | "replayed"

export interface AssistantMessage {
  readonly role: "assistant"
  readonly id: string
  /** The user message this reply answers. */
  readonly parentId: string
  readonly model?: string
  readonly parts: ReadonlyArray<AssistantPart>
  readonly finish?: FinishReason
  readonly error?: NormalizedError
  readonly usage?: Usage
  readonly excluded?: ExclusionReason
  /** Step number within the session, from 0. */
  readonly step: number
}

/** A range of replies cropped from every request (reasoning-loop cropping, docs/loops.md); persisted on a user message. */
export interface CropMarker {
  readonly from: string
  readonly to: string
  readonly key: string
  readonly truncated: boolean
}

export type ReminderKind =
  | "length-continue"
  | "unfinished-stream"
  | "think-only"
  | "invalid"
  | "text-tool-call"
  | "dropped-tool-call"
  | "structured-output"
  | "text-repeat-remind"
  | "text-repeat-replan"
  | "text-loop-mild"
  | "text-loop-strong"
  | "loop-remind"
  | "soft-cap"
  | "summary"
  | "goal-gate"
  | "completion-check"
  | "try-best-continue"
  | "handoff"
  | "breaker-degrade"
  | "breaker-reroute"
  | "compaction"
  | "continue"
  /** Stands in for a stored message that could not be read (the store salvaged the rest). */
  | "unreadable-record"

export interface UserMessage {
  readonly role: "user"
  readonly id: string
  readonly text: string
  /** A reminder written by loopguard rather than a person. Synthetic turns do not reset counters. */
  readonly synthetic?: ReminderKind
  /** Crops persisted on this (real) user message; never sent to the model. */
  readonly crops?: ReadonlyArray<CropMarker>
  /** On a compaction summary (`synthetic: "compaction"`): the stored range it replaces in requests. */
  readonly compacts?: { readonly from: string; readonly to: string }
}

export type Message = UserMessage | AssistantMessage

/** Whether a message is the model's reply. */
export const isAssistant = (m: Message): m is AssistantMessage => m.role === "assistant"
/** Whether a message is a user turn. */
export const isUser = (m: Message): m is UserMessage => m.role === "user"

/** A reply's text parts joined (synthetic text left out unless asked for). */
export const textOf = (m: AssistantMessage, opts?: { includeSynthetic?: boolean }): string =>
  m.parts
    .filter((p): p is TextPart => p.type === "text" && (opts?.includeSynthetic === true || p.synthetic !== true))
    .map((p) => p.text)
    .join("")

/** A reply's reasoning parts joined. */
export const reasoningOf = (m: AssistantMessage): string =>
  m.parts
    .filter((p): p is ReasoningPart => p.type === "reasoning")
    .map((p) => p.text)
    .join("")

/** A reply's tool parts, in order. */
export const toolPartsOf = (m: AssistantMessage): ReadonlyArray<ToolPart> =>
  m.parts.filter((p): p is ToolPart => p.type === "tool")

/** JSON with object keys sorted at every depth: equal inputs give equal strings. */
export const stableJson = (value: unknown): string => JSON.stringify(sortKeys(value))

const sortKeys = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(sortKeys)
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {}
    for (const k of Object.keys(value as object).sort()) out[k] = sortKeys((value as Record<string, unknown>)[k])
    return out
  }
  return value
}

/**
 * A signature function over `inputKey`, each message's made once: the detectors read a step's
 * signature at every later step, and a message is a value (a changed one is a new object).
 */
const signatureBy = (inputKey: (input: unknown) => string): ((m: AssistantMessage) => string) => {
  const made = new WeakMap<AssistantMessage, string>()
  return (m) => {
    const known = made.get(m)
    if (known !== undefined) return known
    const signature = toolPartsOf(m)
      .map((p) => `${p.name}(${inputKey(p.input)})`)
      .join(";")
    made.set(m, signature)
    return signature
  }
}

/**
 * A step's tool-call signature: names + sorted-key argument JSON, in call order, spelled as the
 * loop detectors compare calls (`callInputKey`: whitespace folded, `cat ./f` = `cat f`).
 */
export const toolSignature = signatureBy(callInputKey)

/** `toolSignature` with background shells' handles left out (`jobAgnosticInputKey`): the action cycle's, where a restarted job's new id is no new call. */
export const jobAgnosticSignature = signatureBy(jobAgnosticInputKey)
