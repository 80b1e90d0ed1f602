/**
 * The stored form of a session message, as a Schema: every row read back from a database is
 * checked with it, so a damaged or foreign record is an error naming that record instead of a
 * value the run loop trusts blindly. Mirrors `Message` in @loopguard/core; the record itself is
 * returned, so fields added to the model later survive a round trip even before they are listed here.
 */
import type { Message } from "@loopguard/core/model"
import { Schema } from "effect"

const Finish = Schema.Literals(["stop", "length", "tool-calls", "content-filter", "error", "other", "unknown"])

const Usage = Schema.Struct({
  inputTokens: Schema.optional(Schema.Number),
  outputTokens: Schema.optional(Schema.Number),
  totalTokens: Schema.optional(Schema.Number),
  reasoningTokens: Schema.optional(Schema.Number),
  cachedInputTokens: Schema.optional(Schema.Number)
})

const NormalizedError = Schema.Struct({
  message: Schema.String,
  name: Schema.optional(Schema.String),
  status: Schema.optional(Schema.Number),
  headers: Schema.optional(Schema.Record(Schema.String, Schema.String)),
  code: Schema.optional(Schema.String),
  body: Schema.optional(Schema.String),
  isRetryable: Schema.optional(Schema.Boolean),
  phase: Schema.optional(Schema.Literals(["request", "stream"])),
  causes: Schema.optional(Schema.Array(Schema.String)),
  aborted: Schema.optional(Schema.Boolean)
})

const TextPart = Schema.Struct({
  type: Schema.Literal("text"),
  text: Schema.String,
  synthetic: Schema.optional(Schema.Boolean),
  metadata: Schema.optional(Schema.Record(Schema.String, Schema.Unknown))
})

const ReasoningPart = Schema.Struct({ type: Schema.Literal("reasoning"), text: Schema.String })

const ToolPart = Schema.Struct({
  type: Schema.Literal("tool"),
  callId: Schema.String,
  name: Schema.String,
  input: Schema.Unknown,
  state: Schema.Literals(["pending", "running", "completed", "error"]),
  output: Schema.optional(Schema.String),
  exitCode: Schema.optional(Schema.Number),
  error: Schema.optional(Schema.String),
  path: Schema.optional(Schema.String),
  diff: Schema.optional(Schema.String),
  providerExecuted: Schema.optional(Schema.Boolean),
  notRun: Schema.optional(Schema.Boolean)
})

const CropMarker = Schema.Struct({ from: Schema.String, to: Schema.String, key: Schema.String, truncated: Schema.Boolean })

export const UserMessageSchema = Schema.Struct({
  role: Schema.Literal("user"),
  id: Schema.String,
  text: Schema.String,
  synthetic: Schema.optional(Schema.String),
  crops: Schema.optional(Schema.Array(CropMarker)),
  /** A context compaction's summary: the stored range it replaces in requests. */
  compacts: Schema.optional(Schema.Struct({ from: Schema.String, to: Schema.String }))
})

export const AssistantMessageSchema = Schema.Struct({
  role: Schema.Literal("assistant"),
  id: Schema.String,
  parentId: Schema.String,
  model: Schema.optional(Schema.String),
  parts: Schema.Array(Schema.Union([TextPart, ReasoningPart, ToolPart])),
  finish: Schema.optional(Finish),
  error: Schema.optional(NormalizedError),
  usage: Schema.optional(Usage),
  excluded: Schema.optional(Schema.Literals(["text-tool-call", "rollback", "replayed"])),
  step: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))
})

export const MessageSchema = Schema.Union([UserMessageSchema, AssistantMessageSchema])

const decodeMessage = Schema.decodeUnknownResult(MessageSchema)

/**
 * A stored body back to a Message; the failure is one line a person can act on. `synthetic` is a
 * reminder kind in core's type; any string is kept so an older store with a new kind still loads.
 */
export const parseMessageBody = (body: unknown): { readonly ok: true; readonly message: Message } | { readonly ok: false; readonly problem: string } => {
  let value: unknown = body
  if (typeof body === "string") {
    try {
      value = JSON.parse(body)
    } catch {
      // Not the parser's own words: they quote the body.
      return { ok: false, problem: "not valid JSON" }
    }
  }
  const result = decodeMessage(value)
  // Validated, then kept as stored: a field this Schema does not list yet (the model grows) is not lost.
  if (result._tag === "Success") return { ok: true, message: value as Message }
  const text = result.failure.message.split("\n").slice(0, 3).join(" ").replace(/\s+/g, " ")
  return { ok: false, problem: `not a session message (${text.length > 300 ? text.slice(0, 300) + "…" : text})` }
}
