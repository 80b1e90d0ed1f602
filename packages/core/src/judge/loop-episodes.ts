/**
 * The cross-step loop detectors that share one escalation ladder (docs/loops.md): repeated
 * action, action cycle, repeated observation, repeated failure, varied retry, failure streak,
 * replayed sequence and no-progress spin. Each one's episode raises an incident when it starts (a
 * note for the next request), again when it has
 * gone on long enough for a firmer reminder, and once more when it must stop (exit `idle`, or a
 * pause when try-best is on). Plain state, no Effect: the RunLoop applies what is asked.
 */
import { reminderText, type AgentRole } from "../classify/index.js"
import {
  actionCycle,
  EpisodeLadder,
  noProgressSpin,
  repeatedAction,
  repeatedFailure,
  repeatedObservation,
  replayedSequence,
  SpinPrefix,
  failureStreak,
  MIN_COUNTED_RUN,
  pollingOnward,
  waitingOnStartup,
  waitStateOf,
  isWaiting,
  pollOverdue,
  clockless,
  countingOn,
  steppingOnward,
  stepRecords,
  variedRetry,
  type LadderCounts,
  type StepRecord,
  type StepRecordLog,
  type LoopLevel
} from "../loops/index.js"
import type { Message } from "../model/index.js"
import type { JudgeConfig } from "./judge-config.js"
import type { Incident } from "../report/index.js"
import { stopSentence } from "./stop-words.js"

export interface LoopFinding {
  readonly detector: string
  /** Same key on consecutive steps = the same episode. */
  readonly key: string
  /** The detector's own count on the ladder (identical calls); else steps since the episode began. */
  readonly count?: number
  readonly note: string
  readonly detail: Readonly<Record<string, unknown>>
  /**
   * The episode is held open across a step between its repeats (an edit between two failing
   * builds, a look at the log after the polls): it is counted on, but the newest step is not the
   * loop, so no note says it is ("you are repeating the same action" after the model moved on is
   * false, and nags a change of approach).
   */
  readonly between?: true
}

export interface LoopOutcome {
  readonly incidents: ReadonlyArray<Incident>
  /** Ephemeral note for the next request (never stored). */
  readonly note: string | null
  readonly remind: string | null
  /** The ladder reached its top: what stopped, for the exit or the pause. */
  readonly stop: Readonly<Record<string, unknown>> | null
}

/**
 * One detector of the ladder, called once per step: the session's messages (read from the newest
 * end), its step records (made once, on demand) and the records' version (see `SpinPrefix`).
 */
type Detector = (messages: ReadonlyArray<Message>, records: () => ReadonlyArray<StepRecord>, version: number | undefined) => LoopFinding | null

const cut = (s: string, n = 120) => (s.length <= n ? s : `${s.slice(0, n - 1)}…`)

const allDifferent = (xs: ReadonlyArray<string>): boolean => new Set(xs).size === xs.length

/** Tools that hand a task to a sub-agent (Claude Code's `Task` and `Agent`, `dispatch_agent`), compared case-insensitively. */
const SUBAGENT_TOOLS: ReadonlyArray<string> = ["task", "agent", "dispatch_agent", "spawn_agent", "delegate_task"]

/** Every call of the step hands a task to a sub-agent. */
const handsToSubagent = (r: StepRecord): boolean => r.tool !== "" && r.tool.split(";").every((t) => SUBAGENT_TOOLS.includes(t.toLowerCase()))

/**
 * Repeated failure counts the runs of one failing command; the steps between them (edits, views)
 * keep its episode open, with the same key and count, so the ladder climbs across them.
 */
const repeatedFailureDetector = (config: JudgeConfig, note: string): Detector => {
  let open: { readonly finding: LoopFinding; readonly action: string; readonly since: number } | null = null
  return (_, records) => {
    const all = records()
    const f = repeatedFailure(all, { repeats: config.repeatedFailure.repeats, lookback: config.repeatedFailure.lookback })
    if (f !== null) {
      const finding: LoopFinding = {
        detector: "repeated-failure",
        key: `${f.action}\u0000${f.observation}`,
        // On the ladder by runs: the note at detection, then the same distances as repeated action.
        count: f.count - config.repeatedFailure.repeats + config.repeatedAction.repeats,
        note,
        detail: { action: cut(f.action), count: f.count, editedBetween: f.editedBetween, observation: f.observation }
      }
      open = { finding, action: f.action, since: all.length }
      return finding
    }
    const newest = all[all.length - 1]
    const between = open !== null && newest !== undefined && newest.action !== open.action && all.length - open.since < config.repeatedFailure.lookback
    if (!between) open = null
    return open === null ? null : { ...open.finding, between: true }
  }
}

/**
 * Varied retry counts tries of one skeleton; the steps between them (an uninstall between two
 * installs, a look at the file) keep its episode open, with the same key and count, so the
 * ladder climbs across them instead of starting a new episode at every try.
 */
const variedRetryDetector = (config: JudgeConfig, note: string): Detector => {
  const { repeats, window } = config.variedRetry
  let open: { readonly finding: LoopFinding; readonly skeleton: string; readonly since: number } | null = null
  return (_, records) => {
    const all = records()
    const v = variedRetry(all, { repeats, window })
    if (v !== null) {
      // On the ladder by tries: the note at detection, then the same distances as repeated action.
      const finding: LoopFinding = { detector: "varied-retry", key: v.skeleton, count: v.count - repeats + config.repeatedAction.repeats, note, detail: { ...v } }
      open = { finding, skeleton: v.skeleton, since: all.length }
      return finding
    }
    const newest = all[all.length - 1]
    // A try of the same skeleton with another answer ends the episode: something new came back.
    const between = open !== null && newest !== undefined && !newest.changed && newest.skeleton !== open.skeleton && all.length - open.since < window
    if (!between) open = null
    return open === null ? null : { ...open.finding, between: true }
  }
}

/** The enabled detectors, in the order their incidents are filed. */
const detectorsOf = (config: JudgeConfig, role: AgentRole): ReadonlyArray<Detector> => {
  const out: Array<Detector> = []
  if (config.repeatedAction.enabled) {
    const note = reminderText("repeated-action", role)
    const pagingNote = reminderText("repeated-action-paging", role)
    const pollingNote = reminderText("repeated-action-polling", role)
    const { repeats, remindAt, stopAt } = config.repeatedAction
    // Twice the ladder's top, so a run is still counted well past its stop.
    const maxCount = Math.max(MIN_COUNTED_RUN, 2 * (stopAt ?? remindAt))
    out.push((messages, records) => {
      const a = repeatedAction(messages, { repeats, note, maxCount })
      if (a === null) return null
      // The same call paging through something (scroll down, next page) learns something new each
      // time: while every result differs, the episode stays at the note and never stops the run.
      // The records leave bookkeeping steps out, as the run skipped them: its newest `count` are the run's.
      const run = records().slice(-a.count)
      // Polling a running job (`sleep 30; tail log`) whose output moves on is waiting, not looping,
      // until it is past its patience (poll-wait.ts).
      if (run.length === a.count && pollingOnward(run) && allDifferent(run.map(clockless)) && !((pollOverdue(records(), repeats) ?? 0) > 0)) return null
      // Paging too: the same batch run again while its printed counter moves on (5000/50000, then
      // 10000/50000), though masked its outputs all read the same. Not paging: a sub-agent's answers,
      // new words every time, however alike what they say.
      // So is a debugger stepped through a loop while its newest steps still reach lines not shown before.
      const paging = (allDifferent(run.map((r) => r.observation)) && !run.every(handsToSubagent)) || countingOn(run.map((r) => r.rawObservation)) || steppingOnward(run, repeats)
      const count = paging ? Math.min(a.count, repeats) : a.count
      // A poll within its patience (a deploy that says the same for a few looks) is told it may wait, not that nothing comes of it.
      const waiting = !paging && run.length === a.count && run.every((r) => r.poll) && pollOverdue(records(), repeats) === 0
      return { detector: "repeated-action", key: a.signature, count, note: paging ? pagingNote : waiting ? pollingNote : note, detail: { signature: cut(a.signature), count: a.count, ...(paging ? { paging } : {}), ...(a.bookkeepingSkipped ? { bookkeepingSkipped: true } : {}) } }
    })
  }
  if (config.actionCycle.enabled) {
    const note = reminderText("action-cycle", role)
    out.push((messages, records) => {
      const c = actionCycle(messages, { minPeriod: 2, maxPeriod: config.actionCycle.maxPeriod, replays: config.actionCycle.replays })
      if (c === null) return null
      const run = records().slice(-(c.period + c.replays))
      if (pollingOnward(run) || waitingOnStartup(run)) return null
      return { detector: "action-cycle", key: [...c.cycle].sort().join("\n"), note, detail: { period: c.period, replays: c.replays, cycle: c.cycle.map((s) => cut(s)), ...(c.bookkeepingSkipped ? { bookkeepingSkipped: true } : {}) } }
    })
  }
  if (config.repeatedObservation.enabled) {
    const note = reminderText("repeated-action", role)
    out.push((_, records) => {
      const o = repeatedObservation(records(), config.repeatedObservation)
      return o && { detector: "repeated-observation", key: `${o.tool}\u0000${o.observation}`, note, detail: { tool: o.tool, count: o.count, observation: o.observation, ...(o.failed ? { failed: true } : {}), ...(o.window !== undefined ? { window: o.window } : {}) } }
    })
  }
  if (config.repeatedFailure.enabled) out.push(repeatedFailureDetector(config, reminderText("repeated-action", role)))
  if (config.variedRetry.enabled) out.push(variedRetryDetector(config, reminderText("repeated-action", role)))
  if (config.failureStreak.enabled) {
    const note = reminderText("repeated-action", role)
    const steps = config.failureStreak.steps
    out.push((_, records) => {
      const f = failureStreak(records(), { steps })
      if (f === null) return null
      // On the ladder by failing steps: the note at detection, then the same distances as repeated
      // action. A storm of failures is the error-storm breaker's to stop (it degrades, reroutes and
      // hands back first): with the breaker on, this one reminds but never stops.
      const count = f.count - steps + config.repeatedAction.repeats
      return { detector: "failure-streak", key: "failure-streak", count: config.breaker.enabled ? Math.min(count, config.repeatedAction.remindAt) : count, note, detail: { ...f } }
    })
  }
  if (config.replayedSequence.enabled) {
    const note = reminderText("action-cycle", role)
    out.push((_, records) => {
      const r = replayedSequence(records(), { minLength: config.replayedSequence.minLength, lookback: config.replayedSequence.lookback })
      return r && { detector: "replayed-sequence", key: "replay", note, detail: { ...r } }
    })
  }
  if (config.noProgressSpin.enabled) {
    const note = reminderText("action-cycle", role)
    const prefix = new SpinPrefix()
    out.push((_, records, version) => {
      const s = noProgressSpin(records(), { window: config.noProgressSpin.window, minRepeats: config.noProgressSpin.minRepeats }, prefix, version)
      return s && { detector: "no-progress-spin", key: "spin", note, detail: { ...s } }
    })
  }
  return out
}

/** The loop detectors of one run on one note → reminder → stop ladder, fed once per recorded step. */
export class LoopEpisodes {
  private readonly detectors: ReadonlyArray<Detector>
  private readonly ladders = new Map<number, EpisodeLadder>()
  private readonly counts: LadderCounts
  private readonly remindText: string
  /** The note while the newest steps wait on a job: what a detector would say (nothing new comes back) is false then. */
  private readonly waitingNote: string
  /** With try-best on, the top of the ladder pauses the turn instead of ending the run. */
  private readonly pauseInstead: boolean
  /**
   * One stored reminder per stretch of looping steps: when two detectors see the same loop
   * (the same call is also the same output), the model is reminded once, not once per detector.
   */
  private remindedInStretch = false

  constructor(config: JudgeConfig, role: AgentRole) {
    this.pauseInstead = config.tryBest.enabled
    const a = config.repeatedAction
    this.counts = { noteAt: a.repeats, remindAt: a.remindAt, stopAt: a.stopAt ?? Number.POSITIVE_INFINITY }
    this.detectors = detectorsOf(config, role)
    this.remindText = reminderText("loop-remind", role)
    this.waitingNote = reminderText("repeated-action-polling", role)
  }

  /** `log`: the records of `messages` kept by the caller step by step; without it they are made from `messages`. */
  afterStep(messages: ReadonlyArray<Message>, step: number, log?: StepRecordLog): LoopOutcome {
    let records: ReadonlyArray<StepRecord> | null = log?.records ?? null
    const lazyRecords = () => (records ??= stepRecords(messages))
    const incidents: Array<Incident> = []
    let note: string | null = null
    let remind: string | null = null
    let stop: LoopOutcome["stop"] = null
    let looping = false
    // A poll that sleeps is waiting while within its patience: a detector may note it, never more;
    // past it, each climbs from its note (poll-wait.ts).
    // So are looks at a job coming up while its log moves on (a health check refused between reads of the startup log).
    const wait = waitStateOf(lazyRecords(), this.counts.noteAt)
    const { overdue } = wait
    const most = overdue !== null ? Math.max(this.counts.noteAt, overdue + this.counts.noteAt - 1) : wait.startingUp ? this.counts.noteAt : null
    const waiting = isWaiting(wait)
    for (const [index, detect] of this.detectors.entries()) {
      const finding = detect(messages, lazyRecords, log?.version)
      // Every detector has its own ladder; finding nothing ends its episode.
      const level = this.ladderOf(index).observe(step, finding, most)
      if (finding === null) continue
      looping = true
      if (finding.between !== true) note ??= waiting ? this.waitingNote : finding.note
      if (level === null) continue
      if (level === "stop") {
        // One stop per step: when two detectors see the same loop, the first one names it.
        if (stop !== null) continue
        // Shaped like a try-best pause incident ({ kind, step, detail }) so a pause reads the same;
        // the sentence names the evidence (steps, command, answer), the way a person reads a stop.
        const sentence = stopSentence(this.pauseInstead ? "paused" : "stopped", finding.detector, finding.detail, lazyRecords())
        const detail = { ...finding.detail, kind: finding.detector.replace(/-/g, "_"), step, detail: sentence }
        incidents.push({ step, detector: finding.detector, action: this.pauseInstead ? "pause" : "stop", kind: "loop", detail })
        stop ??= detail
        continue
      }
      incidents.push({ step, detector: finding.detector, action: level, kind: "loop", detail: finding.detail })
      if (level === "remind") remind ??= this.remindText
    }
    if (!looping) this.remindedInStretch = false
    if (remind !== null) {
      if (this.remindedInStretch) remind = null
      this.remindedInStretch = true
    }
    return { incidents, note, remind, stop }
  }

  private ladderOf(index: number): EpisodeLadder {
    let l = this.ladders.get(index)
    if (!l) this.ladders.set(index, (l = new EpisodeLadder(this.counts)))
    return l
  }
}

export type { LoopLevel }
