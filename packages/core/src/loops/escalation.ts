/**
 * The escalation ladder every loop detector shares: a note when a loop episode starts, a firmer
 * reminder when it goes on, and a stop when it still goes on. An incident is raised only when
 * the level changes, so a loop that lasts 20 steps gives three incidents, not twenty.
 */

export type LoopLevel = "note" | "remind" | "stop"

const RANK: Readonly<Record<LoopLevel, number>> = { note: 1, remind: 2, stop: 3 }

export interface LadderCounts {
  /** Count at which the note is given (the detector's own threshold). */
  readonly noteAt: number
  readonly remindAt: number
  readonly stopAt: number
}

/** The documented defaults for repeated action: note at 3 identical calls, remind at 5, stop at 8. */
export const DEFAULT_LADDER: LadderCounts = { noteAt: 3, remindAt: 5, stopAt: 8 }

/** The rung a count has reached, or null below the note. */
export const levelOf = (count: number, counts: LadderCounts): LoopLevel | null =>
  count >= counts.stopAt ? "stop" : count >= counts.remindAt ? "remind" : count >= counts.noteAt ? "note" : null

/**
 * One detector's episodes. `observe` is called once per step with the detector's finding (or
 * null); an episode lasts while the finding does (with the same key), and its count is either
 * the detector's own (identical calls) or the steps since the episode began.
 */
export class EpisodeLadder {
  private key: string | null = null
  private since = 0
  private level: LoopLevel | null = null
  /** How far the episode's count was held down (`most`) while the run waited on a job: never given back. */
  private heldDown = 0
  /** The episode's count before anything was held down, as of the last step. */
  private lastRaw = 0

  constructor(private readonly counts: LadderCounts) {}

  /**
   * Returns the level when it rises (a new episode starts at `note`), else null. `most`: the count
   * the episode may reach this step (a poll within its patience is held at its note). A step of
   * waiting adds nothing to the count past `most`, and what it was held down by stays off the
   * count afterwards: when the wait ends (the agent reads the log of the server that never came
   * up) the episode climbs only by what comes after, never all at once.
   */
  observe(step: number, finding: { readonly key: string; readonly count?: number } | null, most: number | null = null): LoopLevel | null {
    if (finding === null) {
      this.key = null
      this.level = null
      return null
    }
    if (finding.key !== this.key) {
      this.key = finding.key
      this.since = step
      this.level = null
      this.heldDown = 0
      this.lastRaw = 0
    }
    // Without a count of its own, an episode counts its steps on top of the detector's threshold.
    const raw = finding.count ?? this.counts.noteAt + (step - this.since)
    let count = raw - this.heldDown
    if (most !== null && count > most) {
      // Only this step's own gain is held: what came between the waits still counts.
      const held = Math.min(count - most, Math.max(0, raw - this.lastRaw))
      this.heldDown += held
      count -= held
    }
    this.lastRaw = raw
    const level = levelOf(count, this.counts)
    if (level === null || (this.level !== null && RANK[level] <= RANK[this.level])) return null
    this.level = level
    return level
  }

  /** The current episode's level, if one is going on. */
  get current(): LoopLevel | null {
    return this.level
  }
}
