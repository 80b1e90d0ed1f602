/**
 * A recorded reply → the stream parts a live model would have sent for it. Text, reasoning and
 * tool-call arguments go out in small deltas so the in-stream repetition monitor sees a replay
 * the way it sees a live stream (and can cut it at the same place).
 */
import type { AssistantMessage, FinishReason, StreamPart, ToolPart } from "@loopguard/core/model"

export interface ReplayPartsOptions {
  /** Characters per text / reasoning delta. */
  readonly chunkChars: number
}

export const DEFAULT_REPLAY_PARTS: ReplayPartsOptions = { chunkChars: 64 }

const chunks = (text: string, size: number): Array<string> => {
  const out: Array<string> = []
  // Split by code points so a surrogate pair (emoji, rare CJK) is never cut in half.
  const chars = Array.from(text)
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(""))
  return out
}

const toolPartsOf = (reply: AssistantMessage): Array<ToolPart> => reply.parts.filter((p): p is ToolPart => p.type === "tool")

/** The recorded finish, else what a provider would have said: tool-calls when there are calls. */
export const replayFinish = (reply: AssistantMessage): FinishReason =>
  reply.finish ?? (toolPartsOf(reply).length > 0 ? "tool-calls" : "stop")

/** A recorded reply as the stream parts a live model would have sent (deltas of `chunkChars`). */
export const replyToParts = (reply: AssistantMessage, options: ReplayPartsOptions = DEFAULT_REPLAY_PARTS): Array<StreamPart> => {
  const size = Math.max(1, Math.floor(options.chunkChars))
  const parts: Array<StreamPart> = [{ type: "start" }]
  for (const p of reply.parts) {
    if (p.type === "reasoning") for (const text of chunks(p.text, size)) parts.push({ type: "reasoning-delta", text })
    else if (p.type === "text") {
      // loopguard's own notices (e.g. a try-best pause) are not model output.
      if (p.synthetic === true) continue
      for (const text of chunks(p.text, size)) parts.push({ type: "text-delta", text })
    } else {
      // The arguments stream as a live model's do, so the guard on them sees a replay as it would live.
      parts.push({ type: "tool-input-start", id: p.callId, name: p.name })
      for (const delta of chunks(JSON.stringify(p.input ?? {}), size)) parts.push({ type: "tool-input-delta", id: p.callId, delta })
      parts.push({ type: "tool-call", id: p.callId, name: p.name, input: p.input })
    }
  }
  const finish = replayFinish(reply)
  parts.push(reply.usage === undefined ? { type: "finish", finish } : { type: "finish", finish, usage: reply.usage })
  // A recorded failure comes last, after the finish, so the reply keeps its recorded finish.
  if (reply.error !== undefined) parts.push({ type: "error", error: reply.error })
  return parts
}
