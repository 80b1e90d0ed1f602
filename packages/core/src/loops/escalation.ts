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

  constructor(private readonly counts: LadderCounts) {}

  /** Returns the level when it rises (a new episode starts at `note`), else null. */
  observe(step: number, finding: { readonly key: string; readonly count?: number } | null): LoopLevel | null {
    if (finding === null) {
      this.key = null
      this.level = null
      return null
    }
    if (finding.key !== this.key) {
      this.key = finding.key
      this.since = step
      this.level = null
    }
    // Without a count of its own, an episode counts its steps on top of the detector's threshold.
    const count = finding.count ?? this.counts.noteAt + (step - this.since)
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
