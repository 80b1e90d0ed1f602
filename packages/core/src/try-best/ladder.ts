/**
 * Evidence before force for the Try-Best monitor: its first report on a subject (one command's
 * failures, one file's near-identical edits, a streak) is a note for the model; only a further
 * report on the same failing command, in a later step, after the note was given, pauses the
 * turn. Near-identical edits and edit streaks are notes only: measured on real runs, healthy
 * agents rewrite one region several times and edit many files before they test (docs/loops.md).
 *
 * A subject is forgotten when its evidence is gone: the command succeeded or a file change
 * cleared its failures, or a verification run made progress (edits), or the streak ended.
 */
import type { TryBestIncident } from "./incident.js"
import { TryBestMonitor, type TryBestEvent } from "./monitor.js"

export type TryBestLevel = "note" | "pause"

export interface TryBestVerdict {
  readonly incident: TryBestIncident
  readonly level: TryBestLevel
}

/** What a report is about: the same subject again after a note is a loop that went on. */
const subjectOf = (i: TryBestIncident): string =>
  i.kind === "edit_repeat" ? `edit\u0000${i.evidence.path}` : i.kind === "bash_retry" ? `command\u0000${i.evidence.command}` : `streak\u0000${i.evidence.action}`

/** One Try-Best monitor with its note → pause ladder. Plain state, no I/O. */
export class TryBestLadder {
  /** Subjects noted, with the step of the note. */
  private readonly noted = new Map<string, number>()
  private pending: Array<TryBestIncident> = []

  constructor(readonly monitor: TryBestMonitor = new TryBestMonitor()) {}

  /** Feeds one finished tool part: null, a note (first evidence) or a pause (the loop went on after a note). */
  judge(event: TryBestEvent): TryBestVerdict | null {
    const incident = this.monitor.consume(event)
    this.forgetSettled()
    if (incident === null) return null
    const subject = subjectOf(incident)
    const notedAt = this.noted.get(subject)
    if (notedAt === undefined) {
      this.noted.set(subject, incident.step)
      this.pending.push(incident)
      return { incident, level: "note" }
    }
    // Evidence from the note's own step: the model has not seen the note yet. Edits and streaks never pause.
    if (incident.step === notedAt || incident.kind !== "bash_retry") return null
    // The pause names its evidence: the note's step and the step that went on after it.
    return { incident: { ...incident, detail: `${incident.detail} Noted at step ${notedAt}; it failed again at step ${incident.step}.` }, level: "pause" }
  }

  /** The notes raised since the last call, oldest first (for the next request and the report). */
  takeNotes(): Array<TryBestIncident> {
    const notes = this.pending
    this.pending = []
    return notes
  }

  /** After a pause: the monitor and the ladder start from zero. */
  reset(): void {
    this.monitor.reset()
    this.noted.clear()
    this.pending = []
  }

  private forgetSettled(): void {
    const { failures, streak } = this.monitor.state
    for (const subject of this.noted.keys()) {
      const [kind, what = ""] = subject.split("\u0000")
      const settled =
        kind === "command" ? !Object.hasOwn(failures, what) : kind === "edit" ? streak?.action === "verify" && streak.count === 0 : streak === null || streak.action !== what || streak.count === 0
      if (settled) this.noted.delete(subject)
    }
  }
}
