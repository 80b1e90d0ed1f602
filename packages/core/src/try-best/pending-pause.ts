/**
 * A stored session whose last turn was paused by Try-Best and not answered since: its pause must
 * show again when the session is reopened, never be resumed silently (as MiMo Code's Try-Best design asks: the stored
 * part is the source of truth). The pause lives in the paused reply as a synthetic text part whose
 * metadata holds the incident. Pure.
 */
import type { Message, TextPart } from "../model/message.js"

export interface PendingPause {
  /** The paused reply's step. */
  readonly step: number
  readonly notice: string
  readonly incident: Readonly<Record<string, unknown>>
}

const isRecord = (v: unknown): v is Readonly<Record<string, unknown>> => v !== null && typeof v === "object" && !Array.isArray(v)

/** The pause the session is still in, or null when the newest turn went on (or never paused). */
export const pendingPause = (messages: ReadonlyArray<Message>): PendingPause | null => {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!
    // A person answered after the pause (a new turn, a resume): the pause is over.
    if (m.role === "user") {
      if (m.synthetic === undefined) return null
      continue
    }
    if (m.excluded !== undefined) continue
    const notice = m.parts.find((p): p is TextPart => p.type === "text" && p.synthetic === true && isRecord(p.metadata?.["incident"]))
    if (notice === undefined) return null
    return { step: m.step, notice: notice.text, incident: notice.metadata!["incident"] as Readonly<Record<string, unknown>> }
  }
  return null
}
