/**
 * A stored session written out as trace format v1 (docs/trace-format.md), so `loopguard audit`
 * and other tools read a live session exactly as they read a recorded one. Everything the store
 * kept goes out, excluded replies and loopguard's own reminders included (each marked), because
 * a trace is the record of what really happened.
 */
import type { AssistantMessage, Message } from "../model/message.js"
import { reasoningOf, textOf, toolPartsOf } from "../model/message.js"

export interface TraceHeader {
  readonly id: string
  readonly model?: string
  readonly agent?: string
}

/** One trace line as written (the parser's types carry a line number; written lines do not). */
export type TraceRecord = Readonly<Record<string, unknown>> & { readonly type: "session" | "user" | "assistant" | "tool-result" }

const assistantRecord = (m: AssistantMessage): TraceRecord => {
  const reasoning = reasoningOf(m)
  const text = textOf(m, { includeSynthetic: true })
  const calls = toolPartsOf(m).map((p) => ({ id: p.callId, name: p.name, input: p.input ?? {} }))
  return {
    type: "assistant",
    ...(reasoning !== "" ? { reasoning } : {}),
    ...(text !== "" ? { text } : {}),
    ...(calls.length > 0 ? { toolCalls: calls } : {}),
    ...(m.finish !== undefined && m.finish !== "unknown" ? { finish: m.finish } : {}),
    ...(m.error !== undefined
      ? {
          error: {
            message: m.error.message,
            ...(m.error.name !== undefined ? { name: m.error.name } : {}),
            ...(m.error.code !== undefined ? { code: m.error.code } : {}),
            ...(m.error.status !== undefined ? { status: m.error.status } : {})
          }
        }
      : {}),
    ...(m.usage !== undefined ? { usage: m.usage } : {}),
    ...(m.excluded !== undefined ? { excluded: m.excluded } : {})
  }
}

/** Tool results of a reply: only calls that ran (a pending call has no result to record). */
const toolResultRecords = (m: AssistantMessage): ReadonlyArray<TraceRecord> =>
  toolPartsOf(m)
    .filter((p) => p.state === "completed" || p.state === "error")
    .map((p) => ({
      type: "tool-result",
      id: p.callId,
      name: p.name,
      output: p.output ?? p.error ?? "",
      ...(p.exitCode !== undefined ? { exitCode: p.exitCode } : {}),
      ...(p.state === "error" ? { error: true } : {}),
      ...(p.path !== undefined ? { path: p.path } : {}),
      ...(p.diff !== undefined ? { diff: p.diff } : {})
    }))

/** A session's messages as trace v1 lines, in order, with an optional `session` line first. */
export const messagesToTrace = (messages: ReadonlyArray<Message>, header?: TraceHeader): ReadonlyArray<TraceRecord> => {
  const out: Array<TraceRecord> = []
  if (header !== undefined) out.push({ type: "session", ...header })
  for (const m of messages) {
    if (m.role === "user") out.push({ type: "user", text: m.text, ...(m.synthetic !== undefined ? { synthetic: m.synthetic } : {}) })
    else out.push(assistantRecord(m), ...toolResultRecords(m))
  }
  return out
}

/** The trace as file text: one JSON object per line, a newline after the last. */
export const traceText = (records: ReadonlyArray<TraceRecord>): string => records.map((r) => JSON.stringify(r) + "\n").join("")
