/**
 * One finished step as the cross-step loop detectors see it: what it did (the action), what
 * came back (the observation, masked), and whether it changed a file. Pure, built from the
 * session's messages; no I/O.
 */
import { callInputKey } from "../model/call-key.js"
import { toolPartsOf, toolSignature, type AssistantMessage, type Message, type ToolPart } from "../model/message.js"
import { DEFAULT_TRY_BEST_OPTIONS } from "../try-best/options.js"
import { commandContent, failed, isWritingCommand, shellTextOf, stringField, toolRole, type ToolRole } from "../try-best/tool-kinds.js"
import { isVerificationCommand, verificationMatcher } from "../try-best/verification.js"
import { commandCore, commandSkeleton, isLookCommand, isPollCommand, searchQuestion, waitSecondsOf } from "./command-skeleton.js"
import { failureTally, type FailureTally } from "./failure-tally.js"
import { maskArguments, maskInputEcho, maskObservation, maskVolatile, NUMBER, saysNo } from "./masks.js"
import { isFinishedReply } from "./repeated-action.js"

export interface StepRecord {
  /** The step of the reply (its `step`), for the evidence a stop names. */
  readonly step: number
  /** Tool calls with whitespace-normalised arguments; "" for a step without tool calls. */
  readonly action: string
  /**
   * A step of shell calls only: its commands as the agent wrote them (whitespace folded), for the
   * words a person reads (a stop's evidence). `action` is spelled as calls are compared (`./ci.sh`
   * and `ci.sh` are one call there), which is not what the agent ran. Absent for other steps; the
   * evidence then quotes `action`.
   */
  readonly written?: string
  /** `action` with each shell command's output viewers left out (`commandCore`): the same run read through another pipe is one action. */
  readonly coreAction: string
  /** Tool names of the step, in call order. */
  readonly tool: string
  /** The step's tool output with volatile parts masked (see `maskObservation`). */
  readonly observation: string
  /** A file was changed: an edit that completed with a diff, or a shell command that writes. */
  readonly changed: boolean
  /** The step called an edit-type tool (it carried a path and a diff), whatever the result. */
  readonly editing: boolean
  /** A tool call of the step failed (error state, a non-zero exit code, recorded or printed). */
  readonly failed: boolean
  /** What the step's first non-bookkeeping call is (shell, edit, read …); see `toolRole`. */
  readonly role: ToolRole
  /** Shell steps: the command skeleton (`commandSkeleton`), "" when there is none. */
  readonly skeleton: string
  /**
   * The output in the strict sense (`maskVolatile`: only times, durations, ids masked) with the
   * command's own arguments masked (an output that echoes them back).
   */
  readonly argObservation: string
  /**
   * The output with numbers (and volatile ids) masked but quoted names and paths kept: two build
   * errors about different identifiers differ here, while the same error at a moved line does not.
   */
  readonly namedObservation: string
  /**
   * A shell command that does something (`chmod +x`, `git add`) succeeded and printed nothing:
   * Unix silence means it did its work, so its empty answer is no repeated observation. An empty
   * search or listing, or an empty answer that failed, still is.
   */
  readonly silent: boolean
  /** What a search step asks (`searchQuestion`: pattern and paths), whatever program asks it. */
  readonly question?: string
  /** Every call of the step polls a running job (`sleep; tail log`, an empty `is_input`, `BashOutput`). */
  readonly poll: boolean
  /** The seconds the step's commands sleep before they look (`sleep 30 && gh run view`), 0 when they do not wait. */
  readonly waitSeconds: number
  /** The output unmasked (whitespace folded, first 2,000 characters): did a poll see something new? */
  readonly rawObservation: string
  /** A verification command (tests, build) ran and passed. */
  readonly verified: boolean
  /** A verification command (tests, build) ran, whatever its result. */
  readonly verification: boolean
  /** The counts of failed and passed tests (or errors) the output printed, if any (`failureTally`). */
  readonly tally: FailureTally | null
  /**
   * The step only looked something up (a read or search tool, or shell commands that only view:
   * `grep`, `ls`, `cat`, `wc` …) and wrote nothing. A lookup with a new question is exploration,
   * however alike its answer is to the last one (`isExploration`).
   */
  readonly lookup: boolean
  /**
   * Every command of the step only looks at something, waiting or not (`isLookCommand`: `curl -sf
   * localhost:8080/health`, `tail app.log`, `fly status`), failed or not.
   */
  readonly look: boolean
  /** The answer turns the try down (`saysNo`: an error, a refusal, nothing found or nothing printed), whatever the exit status. */
  readonly saysNo: boolean
}

export { isWritingCommand, maskObservation }

const OPTIONS = DEFAULT_TRY_BEST_OPTIONS
const VERIFICATION = verificationMatcher(OPTIONS)

/**
 * Git's line for a commit it made (`[detached HEAD e3fcc2c] search: client`, `[main 1a2b3c4] fix`):
 * a `rebase --continue` that commits one pick and stops at the next conflict fails, yet moved the tree.
 */
const COMMIT_MADE = /(?:^|\n)\[[^\]\n]+ [0-9a-f]{7,40}\] \S/

/** A failed git command that still made a commit, as its output says. */
const committedAnyway = (p: ToolPart): boolean => {
  const command = shellTextOf(p)
  return command !== undefined && /\bgit\s/.test(command) && COMMIT_MADE.test(p.output ?? p.error ?? "")
}

/** A call that changed a file: it did not fail (or failed after a commit), and it left a diff, is an edit, or writes from the shell. */
const changesFiles = (c: { readonly part: ToolPart; readonly role: ToolRole }): boolean => {
  const p = c.part
  if (failed(p)) return committedAnyway(p)
  if (p.diff !== undefined && p.diff !== "") return true
  // An edit tool that records no diff (Gemini CLI's `replace`, OpenHands' editor) still wrote.
  if (p.state === "completed" && c.role === "edit") return true
  const command = shellTextOf(p)
  return command !== undefined && isWritingCommand(command)
}

/** Whether a finished reply changed a file, as its step record says, without making the record. */
export const replyChangedFiles = (m: AssistantMessage): boolean =>
  toolPartsOf(m).some((part) => {
    const role = toolRole(part, OPTIONS)
    return role !== "bookkeeping" && changesFiles({ part, role })
  })

/** A call's input with its shell command (`command`, `cmd`, Codex's argv's last word) reduced to `commandCore`. */
const coreInputOf = (input: unknown): unknown => {
  if (input === null || typeof input !== "object" || Array.isArray(input)) return input
  const out: Record<string, unknown> = { ...(input as Record<string, unknown>) }
  for (const key of ["command", "cmd"]) {
    const value = out[key]
    if (typeof value === "string") out[key] = commandCore(value)
    else if (Array.isArray(value) && typeof value.at(-1) === "string") out[key] = [...value.slice(0, -1), commandCore(value.at(-1) as string)]
  }
  return out
}

/** The step's calls as `toolSignature` spells them, each shell command reduced to what it runs. */
const coreActionOf = (parts: ReadonlyArray<ToolPart>): string => parts.map((p) => `${p.name}(${callInputKey(coreInputOf(p.input))})`).join(";")

/** Tools that read what a background job printed so far (Claude Code's `BashOutput`, `TaskOutput`), compared case-insensitively. */
const JOB_OUTPUT_TOOLS: ReadonlyArray<string> = ["bashoutput", "taskoutput"]

/**
 * A call that looks at a running job as a poll's command does: a read of its output so far, or
 * Codex's `write_stdin` with nothing to write (it returns the session's new output).
 */
export const readsJobOutput = (part: Pick<ToolPart, "name" | "input">): boolean => {
  const name = part.name.toLowerCase()
  return JOB_OUTPUT_TOOLS.includes(name) || (name === "write_stdin" && (stringField(part.input, "chars") ?? "") === "")
}

const questionField = (question: string | null): { question?: string } => (question === null ? {} : { question })

/** `StepRecord.written` of a step whose calls are all shell commands (`commands`), else no field. */
const writtenField = (commands: ReadonlyArray<string> | null): { written?: string } =>
  commands === null ? {} : { written: commands.join("; ").replace(/\s+/g, " ").trim() }

const RAW_OBSERVATION_CHARS = 2000

/**
 * The first `chars` characters of `text` with its whitespace runs made one space and its ends
 * trimmed, read from as little of a long output as gives them: collapsing a head of the text gives a
 * head of the collapsed whole, and one longer than `chars` has text after its last kept space.
 */
export const collapsedHead = (text: string, chars: number): string => {
  if (chars <= 0) return ""
  for (let read = Math.max(chars * 2, 64); read < text.length; read *= 2) {
    const head = text.slice(0, read).replace(/\s+/g, " ").trimStart()
    if (head.length > chars) return head.slice(0, chars)
  }
  return text.replace(/\s+/g, " ").trim().slice(0, chars)
}

/** One finished reply as a step record. */
export const stepRecordOf = (m: AssistantMessage): StepRecord => {
  const parts = toolPartsOf(m)
  const calls = parts.map((part) => ({ part, role: toolRole(part, OPTIONS) })).filter((c) => c.role !== "bookkeeping")
  const working = calls.map((c) => c.part)
  const role: ToolRole = calls[0]?.role ?? (parts.length > 0 ? "bookkeeping" : "other")
  const shells = calls.filter((c) => c.role === "shell").map((c) => ({ part: c.part, command: shellTextOf(c.part) ?? "" }))
  const commands = shells.map((c) => c.command)
  const checks = shells.filter((c) => isVerificationCommand(c.command, VERIFICATION))
  const changed = calls.some(changesFiles)
  const output = working.map((p) => commandContent(p.output ?? p.error ?? "")).join("\n")
  const single = working.length === 1 && commands.length === 1 ? commands[0]! : undefined
  const observation = maskObservation(output)
  const volatile = maskVolatile(output)
  return {
    step: m.step,
    action: toolSignature(m).replace(/\s+/g, " "),
    ...writtenField(commands.length > 0 && commands.length === working.length ? commands : null),
    coreAction: coreActionOf(parts).replace(/\s+/g, " "),
    tool: working.map((p) => p.name).join(";"),
    observation,
    changed,
    editing: working.some((p) => p.path !== undefined && p.diff !== undefined),
    failed: working.some(failed),
    role,
    skeleton: single === undefined ? "" : commandSkeleton(single),
    argObservation: single !== undefined ? maskArguments(output, single, volatile) : commands.length === 0 ? maskInputEcho(output, working.map((p) => p.input)) : volatile,
    namedObservation: volatile.replace(NUMBER, "0"),
    // Only commands that do something: a search or listing that prints nothing found nothing.
    silent: role === "shell" && output.trim() === "" && !working.some(failed) && commands.length > 0 && commands.every((c) => commandSkeleton(c) !== ""),
    poll: working.length > 0 && commands.length + working.filter(readsJobOutput).length === working.length && commands.every(isPollCommand),
    waitSeconds: commands.length === 0 ? 0 : Math.min(...commands.map(waitSecondsOf)),
    rawObservation: collapsedHead(output, RAW_OBSERVATION_CHARS),
    verified: checks.some((c) => !failed(c.part)),
    verification: checks.length > 0,
    tally: failureTally(output),
    // An empty answer to a look (`grep` that printed nothing) says there is nothing there.
    saysNo: output.trim() === "" || saysNo(output),
    lookup: !changed && calls.length > 0 && calls.every((c) => c.role === "read" || (c.role === "shell" && isLookupCommand(shellTextOf(c.part) ?? ""))),
    look: commands.length > 0 && commands.length === working.length && commands.every(isLookCommand),
    ...questionField(single === undefined ? null : searchQuestion(single))
  }
}

/**
 * A call whose failure is an answer rather than a broken tool: a verification run (its failing
 * tests are the report it was run for: triage, test-driven work), a lookup (`which python3`,
 * a read of a file that is not there) or a poll that waits for a job (`sleep 3 && curl …/health`). The error-storm breaker does not count these; a loop of
 * them is the repeated-failure and repeated-action detectors' to find.
 */
export const failureIsAnswer = (part: ToolPart): boolean => {
  const role = toolRole(part, OPTIONS)
  if (role === "read") return true
  if (role !== "shell") return false
  const command = shellTextOf(part) ?? ""
  return isVerificationCommand(command, VERIFICATION) || isLookupCommand(command) || isWaitingPoll(command)
}

/** A poll that sleeps before it looks: its failure ("connection refused" while a server comes up) says the job is not ready yet. */
const isWaitingPoll = (command: string): boolean => isPollCommand(command) && waitSecondsOf(command) > 0

/** Shell commands that only view (every program a viewer: `grep -rn x . | head`) and write nothing. */
const isLookupCommand = (command: string): boolean => command.trim() !== "" && commandSkeleton(command) === "" && !isWritingCommand(command)

/** How far back a question counts as already asked, for `isExploration`. */
const ASKED_LOOKBACK = 30

/**
 * A lookup's question with its spelling folded (case, `_`, `-`, `.`, quotes and spaces): `retryDelay`,
 * `retry_delay`, `RETRY-DELAY` and `'retry delay'` ask one thing; a search asks its pattern in its
 * paths, whatever program and flags ask it (`searchQuestion`).
 */
const questionOf = (r: StepRecord): string => {
  let q = questions.get(r)
  if (q === undefined) questions.set(r, (q = r.question ?? r.action.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "")))
  return q
}
/** Folded once per record: the detectors ask about the same records at every step. */
const questions = new WeakMap<StepRecord, string>()

/**
 * Exploration: a lookup that did not fail and asked something not asked in the steps before it
 * (another query, another file), in any spelling. Many such answers look alike ("no matches", one
 * line count after another) and still teach the agent something: they are no repeated observation
 * and no spin. The same name searched for in another case or with other separators is the same
 * question again. Looks back at most `ASKED_LOOKBACK` records.
 */
export const isExploration = (records: ReadonlyArray<StepRecord>, i: number): boolean => {
  const r = records[i]!
  if (!r.lookup || r.failed) return false
  if (i > 0 && sameLookupAnswer(records[i - 1]!, r)) return false
  const from = Math.max(0, i - ASKED_LOOKBACK)
  for (let j = i - 1; j >= from; j--) if (records[j]!.action === r.action) return false
  const question = questionOf(r)
  for (let j = i - 1; j >= from; j--) if (records[j]!.lookup && questionOf(records[j]!) === question) return false
  return true
}

/** Characters an answer must hold (its input's echo masked) for the very same one to a reworded lookup to be no news. */
const SUBSTANTIAL_ANSWER = 120

/**
 * Two lookups in other words that got the very same answer, one with something in it (not "no
 * matches", nor a short one): a search reworded eight times that brings back the same eight links
 * each time learned nothing new after the first, however new each question.
 */
export const sameLookupAnswer = (a: StepRecord, b: StepRecord): boolean =>
  a.lookup && b.lookup && !a.failed && !b.failed && a.tool === b.tool && b.argObservation.length >= SUBSTANTIAL_ANSWER && a.argObservation === b.argObservation

/**
 * Records already made, per message object. The detectors ask for the whole history after every
 * step; masking every old output again made each step cost more than the one before. Stored
 * messages are immutable (an exclusion or a crop replaces the object), so a record made once
 * stays right, and the entry goes when the message does.
 */
const made = new WeakMap<AssistantMessage, StepRecord>()

/** The record of one finished reply, made once per message object (see `stepRecords`). */
export const recordOf = (m: AssistantMessage): StepRecord => {
  let r = made.get(m)
  if (r === undefined) made.set(m, (r = stepRecordOf(m)))
  return r
}

/**
 * The records of the finished steps in `messages`, oldest first. User turns are skipped, and so
 * are steps that only kept the agent's books (think, todo lists): they answer the same every
 * time, so they would look like a repeated observation, and they neither extend nor break a run
 * of real steps.
 */
export const stepRecords = (messages: ReadonlyArray<Message>): Array<StepRecord> => {
  const out: Array<StepRecord> = []
  for (const m of messages) {
    if (!isFinishedReply(m)) continue
    const r = recordOf(m)
    if (r.role !== "bookkeeping") out.push(r)
  }
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
    const r = recordOf(m)
    // The same records `stepRecords` keeps: bookkeeping steps (think, todo lists) are left out.
    if (r.role === "bookkeeping") return
    this.list.push(r)
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
