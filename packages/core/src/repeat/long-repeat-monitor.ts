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
import { ContentChunker, MIN_CHUNK } from "./content-chunker.js"
import type { LongRepeatOptions } from "./long-repeat-options.js"
import { checkedLongRepeatOptions } from "./long-repeat-options.js"

export interface LongRepeatTrip {
  /** 0-based index (in the short-period rule's token sequence) of the token holding the character that tripped. */
  readonly token: number
  /** 0-based UTF-16 offset, in everything pushed since the last reset, of that character. */
  readonly char: number
  /** "near": numbers masked; "exact": the characters repeat exactly. */
  readonly view: "near" | "exact"
  /** Characters of one copy of the repeated block. */
  readonly blockChars: number
  /** Back-to-back copies of the block when it tripped. */
  readonly copies: number
}

/** The long-period rule over one stream of text and reasoning deltas (docs/repetition.md). */
export class LongRepeatMonitor {
  readonly options: LongRepeatOptions
  private chunker!: ContentChunker
  private periods!: ChunkPeriods
  private echoes!: ChunkEchoes
  private trip: LongRepeatTrip | null = null
  private tripped = false

  constructor(options: Partial<LongRepeatOptions> = {}) {
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

  reset(): void {
    this.chunker = new ContentChunker(this.onChunk)
    this.periods = new ChunkPeriods(this.options, MIN_CHUNK, this.chunker)
    this.echoes = new ChunkEchoes(this.options, MIN_CHUNK, this.chunker, this.periods)
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
    const hit = periodHit ?? echoHit
    if (hit === null) return
    this.tripped = true
    chunker.halted = true
    this.trip = { token: Math.max(0, chunker.tokensBegun - 1), char: chunker.chars, view: hit.view, blockChars: hit.blockChars, copies: hit.copies }
  }
}

/** The long rule's first trip over a whole text (as `loopguard scan` reports it), or null. */
export const scanLongRepeat = (text: string, options: Partial<LongRepeatOptions> = {}): LongRepeatTrip | null =>
  new LongRepeatMonitor(options).push(text)
