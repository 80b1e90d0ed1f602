/**
 * The long-period in-stream rule (docs/repetition.md): raw deltas in, a trip out when a block
 * of text repeats back to back — `copies` times with numbers masked (blocks of `minBlockChars`
 * up to at least `maxBlockChars` characters holding `minWords` distinct words), or exactly over
 * `runChars` characters whatever the block (`!!!!…`, `0.0.0.…`, a repeated base64 line).
 *
 * Cost: O(1) per character for normalising and hashing, plus O(maxPeriod) per chunk of at
 * least MIN_CHUNK characters, i.e. a constant per character independent of the stream length.
 * Memory: O(maxBlockChars / MIN_CHUNK) integers.
 */
import { ChunkEchoes } from "./chunk-echoes.js"
import { ChunkPeriods } from "./chunk-periods.js"
import { WordRecurrence } from "./word-recurrence.js"
import { ContentChunker, MIN_CHUNK } from "./content-chunker.js"
import type { LongRepeatOptions } from "./long-repeat-options.js"
import { checkedLongRepeatOptions } from "./long-repeat-options.js"
import { GuardBuffers } from "./growable.js"

/**
 * What tripped: a block repeated back to back (`repeat`), text made of a few recurring pieces in
 * any order (`recurrence`), or a run of whitespace (`whitespace`).
 */
export type LongRepeatKind = "repeat" | "recurrence" | "whitespace"

export interface LongRepeatTrip {
  readonly kind: LongRepeatKind
  /** 0-based index (in the short-period rule's token sequence) of the token holding the character that tripped. */
  readonly token: number
  /** 0-based UTF-16 offset, in everything pushed since the last reset, of that character. */
  readonly char: number
  /** "near": numbers masked; "exact": the characters repeat exactly. */
  readonly view: "near" | "exact"
  /** Characters of one copy of the repeated block (`recurrence`: of the recurring stretch; `whitespace`: 1). */
  readonly blockChars: number
  /** Back-to-back copies of the block when it tripped (`whitespace`: the run's length). */
  readonly copies: number
}

/** The long-period rule over one stream of text and reasoning deltas (docs/repetition.md). */
export class LongRepeatMonitor {
  readonly options: LongRepeatOptions
  private chunker!: ContentChunker
  private periods!: ChunkPeriods
  private echoes!: ChunkEchoes
  private recurrence!: WordRecurrence
  private trip: LongRepeatTrip | null = null
  private tripped = false

  /** `buffers`: the monitor's own, made on demand (the default) or at full size (tests compare the two; growable.ts). */
  constructor(
    options: Partial<LongRepeatOptions> = {},
    private readonly buffers: GuardBuffers = new GuardBuffers(),
    /** Trip on exact repeats only (see `RepeatGuardOptions.exactRepeatsOnly`). */
    private readonly exactOnly = false
  ) {
    this.options = checkedLongRepeatOptions(options)
    this.reset()
  }

  /** Characters pushed so far. */
  get charsSeen(): number {
    return this.chunker.chars
  }

  /**
   * Feed a delta. Returns the first trip of this stream, once; later deltas return null. A
   * disabled monitor never trips.
   */
  push(delta: string): LongRepeatTrip | null {
    if (!this.options.enabled || this.tripped) return null
    this.chunker.feed(delta)
    return this.trip
  }

  /** Bytes of the buffers it holds (growable.ts). */
  get heldBytes(): number {
    return this.buffers.heldBytes
  }

  /** Starts over: the parts are made anew on the buffers the last ones held (`GuardBuffers.recycle`). */
  reset(): void {
    this.buffers.recycle()
    this.chunker = new ContentChunker(this.onChunk, this.options.whitespaceChars, this.onBlank, this.buffers)
    this.periods = new ChunkPeriods(this.options, MIN_CHUNK, this.chunker, this.buffers)
    this.echoes = new ChunkEchoes(this.options, MIN_CHUNK, this.chunker, this.periods, this.buffers)
    this.recurrence = new WordRecurrence(this.options, this.chunker, this.buffers)
    this.trip = null
    this.tripped = false
  }

  private readonly onChunk = (): void => {
    if (this.tripped) return
    const chunker = this.chunker
    // The character being read closed the chunk; it is counted once `feed` moves past it.
    const chars = chunker.chars + 1
    // Both see every chunk, so each keeps its state whichever trips first; the echoes read the
    // chain of equal hashes that ChunkPeriods has just extended.
    const periodHit = this.periods.push(chars)
    const echoHit = this.echoes.push(chars)
    const recurHit = this.recurrence.push(chars)
    const hit = !this.exactOnly ? (periodHit ?? echoHit) : periodHit?.view === "exact" ? periodHit : echoHit?.view === "exact" ? echoHit : null
    if (hit !== null) this.halt({ kind: "repeat", view: hit.view, blockChars: hit.blockChars, copies: hit.copies })
    else if (recurHit !== null && !this.exactOnly) this.halt({ kind: "recurrence", view: "near", blockChars: recurHit.stretchChars, copies: recurHit.occurrences })
  }

  /** The first trip: the chunker stops reading; `char` is the character being read. */
  private halt(what: Pick<LongRepeatTrip, "kind" | "view" | "blockChars" | "copies">): void {
    const chunker = this.chunker
    this.tripped = true
    chunker.halted = true
    this.trip = { ...what, token: Math.max(0, chunker.tokensBegun - 1), char: chunker.chars }
  }

  private readonly onBlank = (): void => this.halt({ kind: "whitespace", view: "exact", blockChars: 1, copies: this.options.whitespaceChars })
}

/** The long rule's first trip over a whole text (as `loopguard scan` reports it), or null. */
export const scanLongRepeat = (text: string, options: Partial<LongRepeatOptions> = {}): LongRepeatTrip | null =>
  new LongRepeatMonitor(options).push(text)
