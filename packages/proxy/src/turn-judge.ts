/**
 * The shared cross-step judge over one user turn, fed one message at a time as the RunLoop feeds
 * it after each step. A turn judged for one request can be taken up again for the next request of
 * the same conversation when the new turn starts with exactly the messages already fed (compared
 * whole): then only the new steps are judged, and the verdict is the one a fresh judge would give,
 * so replicas still agree. A process keeps the turns of its recent conversations (`TurnMemo`).
 */
import { CrossStepDetectors } from "@loopguard/core/judge"
import { doomLoop, StepRecordLog } from "@loopguard/core/loops"
import { toolPartsOf, type Message } from "@loopguard/core/model"
import { blockedAtOf, type ExitPoint, type Incident } from "@loopguard/core/report"
import { StopHold } from "./stop-hold.js"
import type { StopVerdict, VerdictConfig } from "./verdict-types.js"

/** A text for the upstream, asked for after the turn's message at `after`. */
export interface TurnReminder {
  readonly after: number
  readonly kind: string
  readonly text: string
}

const doomText = (tool: string, repeats: number): string =>
  `You called ${tool} ${repeats} times with the same input in one reply. Do not repeat a call whose result you already have; use it, or try something different.`

/**
 * The stop's words: which detector raised it, and the evidence in the words every host's report
 * uses (`blockedAtOf`: the step, why, and the last tool failure before it).
 */
const stopOf = (incidents: ReadonlyArray<Incident>, exit: ExitPoint, history: ReadonlyArray<Message>): StopVerdict => {
  const raised = incidents.find((i) => i.action === "stop" || i.action === "terminate" || i.action === "hand-back" || i.action === "pause") ?? incidents[incidents.length - 1]
  const detector = raised?.detector ?? "loop"
  const detail = raised?.detail?.["detail"]
  return {
    detector,
    loop: detector === "breaker" ? "the tool calls keep failing (error-storm breaker)" : `the agent is stuck in a loop (${detector})`,
    evidence: blockedAtOf(exit, exit.reason, history, undefined, incidents) ?? (typeof detail === "string" ? detail : exit.error?.message ?? detector),
    next: "stop repeating this; summarise what was tried and what failed, then ask the user how to go on or take a clearly different approach"
  }
}

/** One user turn under the cross-step judge, fed message by message; what it asked for so far. */
export class TurnJudge {
  /** Made at the turn's first step: a turn of user messages only (a conversation's first request) never pays for one. */
  private judge: CrossStepDetectors | null = null
  private readonly records = new StepRecordLog()
  private readonly fed: Array<Message> = []
  /** Each fed message as JSON: what a later turn must start with to take this one up. */
  private readonly keys: Array<string> = []
  private keyChars = 0
  private newestUserAt = -1
  private note: string | null = null
  readonly reminders: Array<TurnReminder> = []
  /** The incidents of the newest step. */
  newestIncidents: ReadonlyArray<Incident> = []
  private readonly hold = new StopHold()
  steps = 0

  constructor(readonly config: VerdictConfig) {}

  /** The characters of the fed messages' JSON: about what this judge holds in memory. */
  get chars(): number {
    return this.keyChars
  }

  /** Whether `turn` starts with exactly the messages already fed (else this judge cannot be taken up for it); a pause point per message. */
  *continues(turn: ReadonlyArray<Message>): Generator<void, boolean> {
    if (turn.length < this.fed.length) return false
    for (let i = 0; i < this.fed.length; i++) {
      if (JSON.stringify(turn[i]) !== this.keys[i]) return false
      yield
    }
    return true
  }

  /** Feeds the messages of `turn` not fed yet; a pause point per message. */
  *feedFrom(turn: ReadonlyArray<Message>): Generator<void, void> {
    for (let i = this.fed.length; i < turn.length; i++) {
      this.feed(turn[i]!)
      yield
    }
  }

  /** The stop the turn asked for, while the agent has not left its loop (`StopHold`). */
  get stop(): StopVerdict | null {
    return this.hold.stop
  }

  /** The note for the next request: the newest step's. */
  get pendingNote(): string | null {
    return this.note
  }

  private feed(m: Message): void {
    const i = this.fed.length
    this.fed.push(m)
    const key = JSON.stringify(m)
    this.keys.push(key)
    this.keyChars += key.length
    const recorded = this.records.records.length
    this.records.push(m)
    if (m.role === "user") this.newestUserAt = i
    if (m.role !== "assistant") return
    // Steps are numbered as the conversation numbers them (the stored messages, the evidence's runs),
    // not from the turn's start: after a new user message the first step of the turn is not step 0.
    const step = m.step
    const judge = (this.judge ??= new CrossStepDetectors(this.config, this.config.loop.role, false, false))
    // The fed messages themselves, not a copy (a copy per step made a long turn cost its square):
    // the detectors read them during the call and keep none.
    const after = judge.afterStep(this.fed, m, step, { final: toolPartsOf(m).length === 0, costUsd: null }, {
      records: this.records,
      crops: [],
      newestUserAt: this.newestUserAt
    })
    const incidents: Array<Incident> = [...after.incidents]
    for (const r of after.reminders) this.reminders.push({ after: i, kind: r.kind, text: r.text })
    const doomConfig = this.config.doomLoop
    const doom = doomConfig.enabled ? doomLoop(m, { repeats: doomConfig.repeats }) : null
    if (doom !== null) {
      incidents.push({ step, detector: "doom-loop", action: "remind", kind: "loop", detail: { tool: doom.tool } })
      this.reminders.push({ after: i, kind: "doom-loop", text: doomText(doom.tool, doomConfig.repeats) })
    }
    const exit: ExitPoint | null =
      after.exit !== null ? { reason: after.exit.reason, step, error: after.exit.error } : after.pause !== null ? { reason: "try_best_paused", step } : null
    this.hold.step(this.records.records.length > recorded ? this.records.records[recorded]! : null)
    if (exit !== null) this.hold.raise(stopOf(after.incidents, exit, this.fed))
    this.newestIncidents = incidents
    this.note = judge.takeNote()
    this.steps += 1
  }
}

/**
 * The judged turns of a process's recent conversations, by session: at most `limit` of them and
 * about `maxChars` characters of their messages (agents' turns with large tool results add up), the
 * least recently used let go first. Only a speed-up: a turn that does not continue the one kept is
 * judged afresh.
 */
export class TurnMemo {
  private readonly turns = new Map<string, TurnJudge>()
  private chars = 0

  constructor(
    private readonly limit = 256,
    private readonly maxChars = 32_000_000
  ) {}

  /**
   * The judge of `turn` in `session`, fed to its end. The kept one is let go while it is checked and
   * fed (which may pause): another request of the conversation meanwhile is judged afresh.
   */
  *judged(session: string, turn: ReadonlyArray<Message>, config: VerdictConfig): Generator<void, TurnJudge> {
    const kept = this.turns.get(session)
    this.forget(session)
    const judge = kept !== undefined && kept.config === config && (yield* kept.continues(turn)) ? kept : new TurnJudge(config)
    yield* judge.feedFrom(turn)
    this.forget(session)
    this.turns.set(session, judge)
    this.chars += judge.chars
    // The newest turn stays even alone past the budget: it is the one the next request continues.
    while (this.turns.size > 1 && (this.turns.size > this.limit || this.chars > this.maxChars)) this.forget(this.turns.keys().next().value!)
    return judge
  }

  /** Characters of messages the kept turns hold. */
  get heldChars(): number {
    return this.chars
  }

  private forget(session: string): void {
    const judge = this.turns.get(session)
    if (judge === undefined) return
    this.chars -= judge.chars
    this.turns.delete(session)
  }
}
