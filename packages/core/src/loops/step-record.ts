/**
 * One finished step as the cross-step loop detectors see it: what it did (the action), what
 * came back (the observation, masked), and whether it changed a file. Pure, built from the
 * session's messages; no I/O.
 */
import { toolPartsOf, toolSignature, type AssistantMessage, type Message } from "../model/message.js"
import { commandOf } from "../try-best/tool-kinds.js"
import { isFinishedReply } from "./repeated-action.js"

export interface StepRecord {
  /** Tool calls with whitespace-normalised arguments; "" for a step without tool calls. */
  readonly action: string
  /** Tool names of the step, in call order. */
  readonly tool: string
  /** The step's tool output with volatile parts masked (see `maskObservation`). */
  readonly observation: string
  /** A file was changed: an edit that completed with a diff, or a shell command that writes. */
  readonly changed: boolean
  /** The step called an edit-type tool (it carried a path and a diff), whatever the result. */
  readonly editing: boolean
  /** A tool call of the step failed (error state or a non-zero exit code). */
  readonly failed: boolean
}

// Order matters: quoted strings first (they may hold paths and numbers), then hex ids before
// the numbers inside them, then paths.
const QUOTED = /"(?:[^"\\\n]|\\.){0,400}"|'(?:[^'\\\n]|\\.){0,400}'|`[^`\n]{0,400}`/g
const HEX_ID = /\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,}\b/gi
const PATH = /(?:~|\.{1,2})?(?:\/[\w.@+-]+)+\/?|\b[\w.@+-]+(?:\/[\w.@+-]+)+\/?/g
const NUMBER = /\d+(?:\.\d+)*/g

/**
 * What stays of an output when the parts that change between otherwise identical results are
 * masked: quoted strings, hex ids (commit hashes, object ids), paths and numbers. "No matches
 * found for "foo" in /src" and "No matches found for "bar" in /lib" are one observation.
 */
export const maskObservation = (output: string): string =>
  output
    .replace(QUOTED, "<q>")
    .replace(HEX_ID, "<hex>")
    .replace(PATH, "<path>")
    .replace(NUMBER, "0")
    .replace(/\s+/g, " ")
    .trim()

// Shell commands that write files (the trace labels count them as changes too).
const WRITING_COMMAND =
  /\bsed\s+(?:-[a-zA-Z]*\s+)*-i|(?:^|[^<>&2])>{1,2}\s*(?!&|\/dev\/null)[\w./~-]|\btee\b|(?:^|[;&|]\s*)(?:cp|mv|rm|touch|mkdir|patch)\b|\bgit\s+(?:apply|checkout|restore|stash|reset)\b|\bwrite_text\(|\.write\(|open\([^)]*['"][wa]\+?['"]/

/** Does a shell command write files (so the step counts as a file change)? */
export const isWritingCommand = (command: string): boolean => WRITING_COMMAND.test(command)

const failed = (p: { state: string; exitCode?: number }): boolean => p.state === "error" || (p.exitCode !== undefined && p.exitCode !== 0)

/** One finished reply as a step record. */
export const stepRecordOf = (m: AssistantMessage): StepRecord => {
  const parts = toolPartsOf(m)
  const changed = parts.some((p) => {
    if (failed(p)) return false
    if (p.diff !== undefined && p.diff !== "") return true
    const command = commandOf(p.input)
    return command !== undefined && isWritingCommand(command)
  })
  return {
    action: toolSignature(m).replace(/\s+/g, " "),
    tool: parts.map((p) => p.name).join(";"),
    observation: maskObservation(parts.map((p) => p.output ?? p.error ?? "").join("\n")),
    changed,
    editing: parts.some((p) => p.path !== undefined && p.diff !== undefined),
    failed: parts.some(failed)
  }
}

/**
 * Records already made, per message object. The detectors ask for the whole history after every
 * step; masking every old output again made each step cost more than the one before. Stored
 * messages are immutable (an exclusion or a crop replaces the object), so a record made once
 * stays right, and the entry goes when the message does.
 */
const made = new WeakMap<AssistantMessage, StepRecord>()

const recordOf = (m: AssistantMessage): StepRecord => {
  let r = made.get(m)
  if (r === undefined) made.set(m, (r = stepRecordOf(m)))
  return r
}

/** The records of the finished steps in `messages`, oldest first (user turns are skipped). */
export const stepRecords = (messages: ReadonlyArray<Message>): Array<StepRecord> => {
  const out: Array<StepRecord> = []
  for (const m of messages) if (isFinishedReply(m)) out.push(recordOf(m))
  return out
}

/**
 * The step records of a session kept one message at a time (state in, push, records out), for a
 * caller that sees the session grow: the RunLoop's history view pushes each new message and pops
 * or resets on the rare change to an earlier one, so no step walks the whole history. Holds the
 * same records `stepRecords` would give for the same messages.
 */
export class StepRecordLog {
  private list: Array<StepRecord> = []
  /** The message each record was made from (same places as `list`). */
  private from: Array<AssistantMessage> = []
  private changes = 0

  /** The records, oldest first; read-only, valid until the next push, pop or reset. */
  get records(): ReadonlyArray<StepRecord> {
    return this.list
  }

  /** Changes whenever a record went away or was replaced (never on a push): see `SpinPrefix.seen`. */
  get version(): number {
    return this.changes
  }

  /** A message added at the end of the session. */
  push(m: Message): void {
    if (!isFinishedReply(m)) return
    this.list.push(recordOf(m))
    this.from.push(m)
  }

  /** Takes back the newest message's record, when `m` (that message as it was) made one; false when it made none. */
  popIf(m: Message): boolean {
    if (this.from[this.from.length - 1] !== m) return false
    this.list.pop()
    this.from.pop()
    this.changes++
    return true
  }

  /** Starts again from a whole session. */
  reset(messages: ReadonlyArray<Message>): void {
    this.list = []
    this.from = []
    this.changes++
    for (const m of messages) this.push(m)
  }
}
