/**
 * doom_loop (upstream OpenCode's rule, docs/loops.md): within ONE assistant message, the newest parts are all
 * calls of the same tool with the same input. Checked as each tool call arrives; the Effect layer
 * then asks a Permission service (or fails, for a non-interactive agent).
 */
import { stableJson, type AssistantMessage } from "../model/message.js"

export interface DoomLoopOptions {
  /** How many newest parts must be identical tool calls. */
  readonly repeats: number
}

export const DEFAULT_DOOM_LOOP: DoomLoopOptions = { repeats: 3 }

export interface DoomLoop {
  readonly tool: string
  readonly input: unknown
}

/**
 * The newest `repeats` parts must all be tool parts (OpenCode's rule: "the last 3 parts"), so a text or
 * reasoning part between two calls breaks the run. Inputs are compared as sorted-key JSON, and the
 * tool state is ignored: the check runs while the newest call is still pending.
 */
export const doomLoop = (message: AssistantMessage, opts: DoomLoopOptions = DEFAULT_DOOM_LOOP): DoomLoop | null => {
  if (opts.repeats < 1 || message.parts.length < opts.repeats) return null
  const tail = message.parts.slice(-opts.repeats)
  const last = tail[tail.length - 1]!
  if (last.type !== "tool") return null
  const input = stableJson(last.input)
  const same = tail.every((p) => p.type === "tool" && p.name === last.name && stableJson(p.input) === input)
  return same ? { tool: last.name, input: last.input } : null
}
