/**
 * Recurrence of chunks, for a runaway that repeats its pieces in no fixed order or with gaps:
 * reasoning that restarts with a different opener and a slightly reworded body, a paragraph
 * started again and cut off at a different point each time, a counter line whose number moves
 * in irregular steps, short lines that rotate at random. No period lines such copies up
 * (ChunkPeriods) and no steady distance either (ChunkEchoes), but nearly every chunk of the text
 * is one written several times in the last few thousand characters.
 *
 * A chunk is *hot* when it is its masked text's HOT_OCCURRENCES-th occurrence (or later) in a
 * chain of occurrences each within maxBlockChars of the one before. The stretch is the newest run
 * of chunks in which hot chunks keep at least HOT_SHARE of the characters (a maximum-sum
 * segment: hot chunks add 1 − HOT_SHARE per character, others take away HOT_SHARE; the
 * stretch restarts when the sum falls to 0). It trips once its hot chunks cover `recurChars`
 * characters and it reads as prose: at most MAX_SYMBOL_SHARE of its characters are code or
 * markup symbols (code that repeats its lines in place is the period rules' business, and
 * declaration files full of near-identical entries are not loops), its words (2+ letters, or
 * CJK characters) outnumber its numbers twice over, and it holds at least `minWords` distinct words.
 *
 * Cost: one step along ChunkPeriods' chain of equal masked hashes per chunk; the distinct-word
 * count is made when the hot characters reach `recurChars`, then at each doubling (O(1)
 * amortized). Memory: a ring of 2·maxPeriod + 3 chunks.
 */
import type { ContentChunker } from "./content-chunker.js"
import { WORD_RING } from "./content-chunker.js"
import type { LongRepeatOptions } from "./long-repeat-options.js"
import type { ChunkPeriods } from "./chunk-periods.js"

/** Occurrences (this one included) that make a chunk hot. */
export const HOT_OCCURRENCES = 3
/** Share of a stretch's characters that hot chunks must keep. */
export const HOT_SHARE = 0.6
/** Largest share of code and markup symbols in a stretch that still reads as prose. */
export const MAX_SYMBOL_SHARE = 0.02

export interface RecurrenceHit {
  /** Characters of the recurring stretch when it tripped. */
  readonly stretchChars: number
  /** Occurrences of the chunk that tripped (in its chain). */
  readonly occurrences: number
}

export class ChunkRecurrence {
  private readonly capacity: number
  private readonly maxPeriod: number
  /** Occurrences in the chain ending at each kept chunk. */
  private readonly occurrences: Int32Array
  private readonly endChars: Float64Array
  private chunks = 0
  // The stretch: its score, where it began, and its counts at that point (running totals).
  private score = 0
  private startChars = 0
  private startWords = 0
  private startNumbers = 0
  private startSymbols = 0
  private hotChars = 0
  /** Hot characters at which the distinct words are counted next. */
  private nextCheck = 0

  constructor(private readonly options: LongRepeatOptions, minChunkChars: number, private readonly chunker: ContentChunker, private readonly periods: ChunkPeriods) {
    this.maxPeriod = Math.max(1, Math.ceil(options.maxBlockChars / minChunkChars))
    this.capacity = 2 * this.maxPeriod + 3
    this.occurrences = new Int32Array(this.capacity)
    this.endChars = new Float64Array(this.capacity)
    this.nextCheck = options.recurChars
  }

  /** Record the chunk the chunker just closed (after `charsSoFar` characters); a hit when the stretch trips. */
  push(charsSoFar: number): RecurrenceHit | null {
    const j = this.chunks++
    const slot = j % this.capacity
    const chunkStart = j > 0 ? this.endChars[(j - 1) % this.capacity]! : 0
    this.endChars[slot] = charsSoFar
    const src = this.sourceOf(j, chunkStart)
    const occurrences = src < 0 ? 1 : this.occurrences[src % this.capacity]! + 1
    this.occurrences[slot] = occurrences
    const chars = charsSoFar - chunkStart
    const hot = occurrences >= HOT_OCCURRENCES
    this.score += occurrences >= 2 ? (1 - HOT_SHARE) * chars : -HOT_SHARE * chars
    if (this.score <= 0) {
      this.restart(charsSoFar)
      return null
    }
    if (!hot) return null
    this.hotChars += chars
    if (this.hotChars < this.nextCheck) return null
    this.nextCheck = 2 * this.hotChars
    return this.readsAsProse(charsSoFar) ? { stretchChars: charsSoFar - this.startChars, occurrences } : null
  }

  /**
   * The newest earlier chunk with j's masked text, within maxBlockChars characters, or -1. Only
   * the chunk's own characters count (its first hash): the second mixes in the characters before
   * it, and a line that recurs after a different line must still match.
   */
  private sourceOf(j: number, chunkStart: number): number {
    const pos = this.periods.previousSame(j)
    if (pos < 0 || j - pos > this.maxPeriod || chunkStart - this.endChars[pos % this.capacity]! > this.options.maxBlockChars) return -1
    return pos
  }

  private restart(charsSoFar: number): void {
    const c = this.chunker
    this.score = 0
    this.hotChars = 0
    this.nextCheck = this.options.recurChars
    this.startChars = charsSoFar
    this.startWords = c.lastWordEnd
    this.startNumbers = c.lastNumberEnd
    this.startSymbols = c.lastSymbolEnd
  }

  private readsAsProse(charsSoFar: number): boolean {
    const c = this.chunker
    const chars = charsSoFar - this.startChars
    if (c.lastSymbolEnd - this.startSymbols > MAX_SYMBOL_SHARE * chars) return false
    const words = c.lastWordEnd - this.startWords
    if (words < 2 * (c.lastNumberEnd - this.startNumbers)) return false
    return this.distinctWords(this.options.minWords) >= this.options.minWords
  }

  /** Distinct words of the stretch (the newest WORD_RING at most), counted up to `need`. */
  private distinctWords(need: number): number {
    const last = this.chunker.lastWordEnd
    const first = Math.max(this.startWords, last - WORD_RING)
    const seen = new Set<number>()
    const words = this.chunker.words
    for (let w = last - 1; w >= first && seen.size < need; w--) seen.add(words[w % WORD_RING]!)
    return seen.size
  }
}
