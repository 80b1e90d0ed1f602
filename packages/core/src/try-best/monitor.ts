/**
 * The Try-Best monitor: watches finished tool calls across steps for low-yield loops
 * and reports one of three incidents.
 *
 * - edit_repeat: an edit whose normalized diff is more than `editSimilarity` alike (Jaccard of
 *   3-word shingles) to `editMatches` earlier edits of the same path, among the last
 *   `editWindow` edits of all files. A refused edit changed nothing and is no edit at all.
 * - bash_retry: one normalized command has failed `failedCommandRetries` times (a poll that sleeps:
 *   its patience, poll-wait.ts). A successful edit clears every count, the command's own success clears its count, and a failing
 *   verification run whose output changed restarts its count at 1.
 * - action_streak: `actionStreak` no-progress actions of one kind in a row.
 *
 * `editMatches` or `actionStreak` 0 turns that report off (the config's default: see ladder.ts).
 *
 * "Of one kind": there are two kinds, edits and verification runs; one streak is kept, for the
 * kind of the latest counted action. An edit never makes progress (so 4 edits in a row fire,
 * even on 4 files); a verification run makes progress when it succeeds or its output changed.
 * An action of the other kind starts a new streak at 1 (a failing test between two edits is an
 * edit-test cycle, not a run of blind edits; an identical failure repeated across those cycles is
 * left to the stall signals, see stall-signals.ts). Progress sets the streak to 0. Other shell
 * commands, reads and searches neither count nor break the streak. Once at the threshold, every
 * further no-progress action of that kind fires again, unless the caller resets (the run loop does when it pauses).
 *
 * State is plain data (JSON-serializable); `consumeTryBest` is pure; `TryBestMonitor` holds it.
 */
import type { ToolPart } from "../model/message.js"
import { isLookCommand, isPollCommand, waitSecondsOf } from "../loops/command-skeleton.js"
import { pollPatience } from "../loops/poll-wait.js"
import { editRecords } from "./edit-records.js"
import {
  actionStreakIncident,
  bashRetryIncident,
  editRepeatIncident,
  type ActionKind,
  type TryBestIncident
} from "./incident.js"
import { normalizeCommand, normalizeDiff, normalizeOutput, normalizePath } from "./normalize.js"
import { resolveTryBestOptions, type TryBestOptions } from "./options.js"
import { jaccard, shingles } from "./similarity.js"
import { classifyTool, commandContent, failed, isWritingCommand, resultText } from "./tool-kinds.js"
import { isVerificationCommand, verificationMatcher } from "./verification.js"

/** A finished tool call and the step whose reply made it. */
export interface TryBestEvent {
  readonly part: ToolPart
  readonly step: number
}

export interface EditEntry {
  readonly path: string
  readonly shingles: ReadonlyArray<string>
  readonly step: number
}

export interface TryBestState {
  /** The last `editWindow` edits of all files, oldest first. */
  readonly edits: ReadonlyArray<EditEntry>
  /** Failures per normalized command since its last success or the last successful edit. */
  readonly failures: Readonly<Record<string, number>>
  /** Normalized outputs of each failing verification command since its last success, oldest first. */
  readonly outputs: Readonly<Record<string, ReadonlyArray<string>>>
  readonly streak: { readonly action: ActionKind; readonly count: number } | null
}

/** Try-Best state before the first tool part. */
export const initTryBest = (): TryBestState => ({ edits: [], failures: {}, outputs: {}, streak: null })

export interface TryBestStep {
  readonly state: TryBestState
  readonly incident: TryBestIncident | null
}

/** Outputs remembered per command for the "novel" progress test. */
const OUTPUT_MEMORY = 16

// Commands are arbitrary text: never read inherited properties (`__proto__`, `constructor`).
const own = <V>(record: Readonly<Record<string, V>>, key: string): V | undefined =>
  Object.hasOwn(record, key) ? record[key] : undefined

const without = <V>(record: Readonly<Record<string, V>>, key: string): Readonly<Record<string, V>> =>
  Object.hasOwn(record, key) ? Object.fromEntries(Object.entries(record).filter(([k]) => k !== key)) : record

const withEntry = <V>(record: Readonly<Record<string, V>>, key: string, value: V): Readonly<Record<string, V>> =>
  Object.fromEntries([...Object.entries(record).filter(([k]) => k !== key), [key, value]])

const keepLast = <A>(items: ReadonlyArray<A>, n: number): ReadonlyArray<A> => (n <= 0 ? [] : items.slice(-n))

const advanceStreak = (
  streak: TryBestState["streak"],
  action: ActionKind,
  progress: boolean
): NonNullable<TryBestState["streak"]> => {
  if (progress) return { action, count: 0 }
  return { action, count: streak !== null && streak.action === action ? streak.count + 1 : 1 }
}

/** Feeds one finished tool part to the Try-Best monitor; the state after and any incident it raised. */
export const consumeTryBest = (
  state: TryBestState,
  event: TryBestEvent,
  options: TryBestOptions = resolveTryBestOptions()
): TryBestStep => {
  const { part } = event
  if (part.state !== "completed" && part.state !== "error") return { state, incident: null }
  const kind = classifyTool(part, options)
  if (kind.kind === "edit") return consumeEdit(state, event, options)
  if (kind.kind === "shell") return consumeShell(state, event, kind.command, options)
  return { state, incident: null }
}

const consumeEdit = (state: TryBestState, { part, step }: TryBestEvent, options: TryBestOptions): TryBestStep => {
  // A refused edit ("No replacement was performed", a patch that did not apply) changed nothing:
  // it is no edit, neither for the near-identical edits nor for the streak. Sending it again and
  // again is the cross-step detectors' business (the same call, the same refusal).
  if (failed(part)) return { state, incident: null }
  let edits = state.edits
  let repeat: TryBestIncident | null = null
  let lastPath = part.path === undefined ? undefined : normalizePath(part.path)
  for (const record of editRecords(part)) {
    if (record.path === undefined) continue
    const path = normalizePath(record.path)
    lastPath = path
    const text = normalizeDiff(record.diff)
    if (text === "") continue
    const set = shingles(text)
    const matches = edits
      .filter((e) => e.path === path)
      .map((e) => ({ step: e.step, similarity: jaccard(set, e.shingles) }))
      .filter((m) => m.similarity > options.editSimilarity)
    edits = keepLast([...edits, { path, shingles: set, step }], options.editWindow)
    if (repeat === null && options.editMatches > 0 && matches.length >= options.editMatches) {
      repeat = editRepeatIncident(
        step,
        {
          tool: part.name,
          callId: part.callId,
          path,
          count: matches.length + 1,
          similarity: Math.max(...matches.map((m) => m.similarity)),
          matchedSteps: matches.map((m) => m.step)
        },
        options.editSimilarity
      )
    }
  }
  const next = streakStep({ ...state, edits, failures: {} }, part, step, "edit", false, options, { path: lastPath })
  return repeat === null ? next : { state: next.state, incident: repeat }
}

/** A command's output this run, the outputs it gave before (oldest first), and the memory with this one kept as the newest. */
const rememberOutput = (outputs: TryBestState["outputs"], command: string, part: ToolPart, options: TryBestOptions) => {
  const output = normalizeOutput(commandContent(resultText(part)), options.outputLimit)
  const seen = own(outputs, command) ?? []
  return { output, seen, outputs: withEntry(outputs, command, keepLast([...seen.filter((s) => s !== output), output], OUTPUT_MEMORY)) }
}

/** The failure counts of commands that do something, the looks' left out. */
const withoutLooks = (failures: TryBestState["failures"]): TryBestState["failures"] =>
  Object.fromEntries(Object.entries(failures).filter(([command]) => !isLookCommand(command)))

/** Failures of one command that make a retry loop; a poll that sleeps (a server coming up) is given its patience. */
const retriesOf = (rawCommand: string, options: TryBestOptions): number => {
  const wait = isPollCommand(rawCommand) ? waitSecondsOf(rawCommand) : 0
  return wait > 0 ? pollPatience(wait, options.failedCommandRetries) : options.failedCommandRetries
}

const consumeShell = (
  state: TryBestState,
  { part, step }: TryBestEvent,
  rawCommand: string,
  options: TryBestOptions
): TryBestStep => {
  const command = normalizeCommand(rawCommand)
  const verifying = isVerificationCommand(command, verificationMatcher(options))
  if (!failed(part)) {
    const polled = isPollCommand(rawCommand) ? rememberOutput(state.outputs, command, part, options) : null
    const moved = polled !== null && polled.seen.length > 0 && polled.seen[polled.seen.length - 1] !== polled.output
    const failures = isWritingCommand(rawCommand) ? {} : without(state.failures, command)
    const cleared: TryBestState = {
      ...state,
      // A command that writes files (`cat > x.py << EOF`, `sed -i`) changes what the next run does, like an edit.
      // A poll that saw its job move (`tail app.log` while a server starts) makes the looks that
      // failed on it (`curl -sf localhost:8080/health`) worth asking again: their counts start over.
      failures: moved ? withoutLooks(failures) : failures,
      outputs: verifying ? without(state.outputs, command) : (polled?.outputs ?? state.outputs)
    }
    return verifying ? streakStep(cleared, part, step, "verify", true, options, { command }) : { state: cleared, incident: null }
  }
  let outputs = state.outputs
  let changed = false
  // A poll waiting on a job (`kubectl rollout status --timeout=90s`: "1 of 3 updated replicas", then
  // "2 of 3") that answers something new is waiting, not retrying: its count starts again, as a
  // verification's does when its output moves.
  const waiting = isPollCommand(rawCommand) && waitSecondsOf(rawCommand) > 0
  if (verifying || waiting) {
    const { output, seen, outputs: kept } = rememberOutput(state.outputs, command, part, options)
    changed = seen.length > 0 && (options.outputProgress === "novel" ? !seen.includes(output) : seen[seen.length - 1] !== output)
    outputs = kept
  }
  const count = changed ? 1 : (own(state.failures, command) ?? 0) + 1
  const next: TryBestState = { ...state, failures: withEntry(state.failures, command, count), outputs }
  const retry =
    count >= retriesOf(rawCommand, options)
      ? bashRetryIncident(step, {
          tool: part.name,
          callId: part.callId,
          command,
          count,
          verification: verifying,
          ...(typeof part.exitCode === "number" ? { exitCode: part.exitCode } : {})
        })
      : null
  if (!verifying) return { state: next, incident: retry }
  const streak = streakStep(next, part, step, "verify", changed, options, { command })
  return { state: streak.state, incident: retry ?? streak.incident }
}

const streakStep = (
  state: TryBestState,
  part: ToolPart,
  step: number,
  action: ActionKind,
  progress: boolean,
  options: TryBestOptions,
  about: { readonly path?: string | undefined; readonly command?: string }
): TryBestStep => {
  const streak = advanceStreak(state.streak, action, progress)
  const next = { ...state, streak }
  if (progress || options.actionStreak === 0 || streak.count < options.actionStreak) return { state: next, incident: null }
  return {
    state: next,
    incident: actionStreakIncident(step, {
      tool: part.name,
      callId: part.callId,
      action,
      count: streak.count,
      ...(about.command !== undefined ? { command: about.command } : {}),
      ...(about.path !== undefined ? { path: about.path } : {})
    })
  }
}

/** Stateful wrapper for one agent of one session. The caller resets it after an incident. */
export class TryBestMonitor {
  readonly options: TryBestOptions
  private current: TryBestState

  constructor(options?: Partial<TryBestOptions>, state: TryBestState = initTryBest()) {
    this.options = resolveTryBestOptions(options)
    this.current = state
    // Fail on a bad pattern now rather than on the first shell call.
    verificationMatcher(this.options)
  }

  /** Feed one tool part; anything not finished (pending, running) is ignored. */
  consume(event: TryBestEvent): TryBestIncident | null {
    const { state, incident } = consumeTryBest(this.current, event, this.options)
    this.current = state
    return incident
  }

  reset(): void {
    this.current = initTryBest()
  }

  /** A snapshot of the state (plain data), e.g. to persist and restore later. */
  get state(): TryBestState {
    return this.current
  }
}
