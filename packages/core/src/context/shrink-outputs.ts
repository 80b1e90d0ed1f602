/**
 * The cheapest way to make a history fit the context again: shorten what old tool calls returned
 * (build logs, file dumps), oldest first, keeping each output's head and tail. The store keeps
 * everything; only the request view is shortened. Ladder: outputs of all but the latest reply to
 * 2,000 characters, then to 500, then the latest reply's too, then 200 everywhere; past the last
 * rung nothing more can be shrunk this way.
 */
import type { AssistantPart, ToolPart } from "../model/message.js"

export interface OutputShrink {
  /** Longest tool output kept, in characters. */
  readonly maxChars: number
  /** The latest replies whose outputs are left whole. */
  readonly keepRecent: number
}

export const SHRINK_LADDER: ReadonlyArray<OutputShrink> = [
  { maxChars: 2_000, keepRecent: 1 },
  { maxChars: 500, keepRecent: 1 },
  { maxChars: 500, keepRecent: 0 },
  { maxChars: 200, keepRecent: 0 }
]

/** The rung after `current` (null before the first), or null past the last. */
export const nextShrink = (current: OutputShrink | null): OutputShrink | null => {
  if (current === null) return SHRINK_LADDER[0]!
  const i = SHRINK_LADDER.findIndex((r) => r.maxChars === current.maxChars && r.keepRecent === current.keepRecent)
  return SHRINK_LADDER[i + 1] ?? null
}

const shortened = (text: string, maxChars: number): string => {
  if (text.length <= maxChars) return text
  const head = Math.ceil(maxChars / 2)
  const tail = maxChars - head
  return `${text.slice(0, head)}\n…[${text.length - maxChars} characters of this earlier tool output left out to fit the context window]…\n${text.slice(text.length - tail)}`
}

const shrinkPart = (part: AssistantPart, maxChars: number): AssistantPart =>
  part.type === "tool" && part.output !== undefined && part.output.length > maxChars ? ({ ...part, output: shortened(part.output, maxChars) } satisfies ToolPart) : part

type Shrinkable = { readonly role: string; readonly parts?: ReadonlyArray<AssistantPart> }

/** The messages with old tool outputs shortened per `shrink`; `shrunk` counts the outputs shortened. */
export const shrinkToolOutputs = <M extends Shrinkable>(messages: ReadonlyArray<M>, shrink: OutputShrink): { readonly messages: Array<M>; readonly shrunk: number } => {
  const replies = messages.flatMap((m, i) => (m.role === "assistant" && m.parts !== undefined ? [i] : []))
  const keepFrom = shrink.keepRecent <= 0 ? messages.length : (replies[replies.length - shrink.keepRecent] ?? 0)
  let shrunk = 0
  const out = messages.map((m, i) => {
    if (i >= keepFrom || m.role !== "assistant" || m.parts === undefined) return m
    const parts = m.parts.map((p) => shrinkPart(p, shrink.maxChars))
    const changed = parts.filter((p, j) => p !== m.parts![j]).length
    shrunk += changed
    return changed === 0 ? m : { ...m, parts }
  })
  return { messages: out, shrunk }
}
