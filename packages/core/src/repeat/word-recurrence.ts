/**
 * Recurrence of word shingles, for a runaway that repeats its sentences in no fixed order or with
 * gaps: reasoning that restarts with a different opener and a slightly reworded body, a paragraph
 * started again and cut off at a different point each time, a counter line whose number moves in
 * irregular steps, short lines that rotate at random. No period lines such copies up
 * (ChunkPeriods), no steady distance either (ChunkEchoes), and a reworded word moves the chunk
 * cuts around it; but nearly every run of SHINGLE_WORDS words is one written several times in
 * the last few thousand characters.
 *
 * Each term (a word of 2+ characters, identifiers with masked numbers included, or a CJK
 * character: the chunker's `terms`) closes a shingle of the last SHINGLE_WORDS terms. A shingle
 * is *seen* when it occurred within RECENT_WORDS terms before, and *hot* from its
 * HOT_OCCURRENCES-th occurrence in such a chain. The stretch is the newest run of terms in which
 * seen shingles keep at least SEEN_SHARE of the terms (a maximum-sum segment: a seen shingle adds
 * 1 − SEEN_SHARE, another takes away SEEN_SHARE; the stretch restarts when the sum falls to 0).
 * It trips once it covers `recurChars` characters, at least HOT_SHARE of its terms from its first
 * hot one on are hot (LONG_HOT_SHARE from twice `recurChars` on), and it reads as prose: at most
 * MAX_SYMBOL_SHARE symbol weight per masked character (code that repeats its lines in place is
 * the period rules' business; declaration files and code listings full of near-identical entries
 * are not loops), twice as many words as numbers, and `minWords` distinct words.
 *
 * Cost: the terms are read at each chunk's end, one shingle hash and one table slot per term;
 * the distinct-word count is made when the stretch reaches `recurChars` characters, then at each
 * doubling (O(1) amortized). Memory: a table of TABLE_SIZE shingles, independent of the stream.
 */
import type { ContentChunker } from "./content-chunker.js"
import { WORD_RING } from "./content-chunker.js"
import type { LongRepeatOptions } from "./long-repeat-options.js"
import { EMPTY_INT32, GuardBuffers } from "./growable.js"

/** Terms per shingle (`term` hashes exactly this many). */
export const SHINGLE_WORDS = 3
/** A shingle seen within this many words before recurs (about 8 000 characters of prose). */
export const RECENT_WORDS = 1_500
/** Occurrences (this one included) that make a shingle hot. */
export const HOT_OCCURRENCES = 3
/** Share of a stretch's terms whose shingle was seen before, in tenths (the score is kept in integers). */
const SEEN_TENTHS = 7
export const SEEN_SHARE = SEEN_TENTHS / 10
/** Share of a stretch's words (from its first hot one) whose shingle is hot when it trips. */
export const HOT_SHARE = 0.8
/** The same share once the stretch covers twice `recurChars`: a loop reworded in every copy gets there later. */
export const LONG_HOT_SHARE = 0.75
/** Largest symbol weight (a brace 2, a parenthesis 1; content-chunker.ts) per masked character of a stretch that still reads as prose. */
export const MAX_SYMBOL_SHARE = 0.02
/**
 * Shingles remembered (a power of two; 32 KB, so the table stays in the fastest cache); a newer
 * shingle takes an older one's slot, which only ever loses a recurrence.
 */
const TABLE_SIZE = 4_096
/** Low bits of a slot's second field holding the occurrences (capped); the term index is above them. */
const OCCURRENCE_BITS = 7
const OCCURRENCE_CAP = (1 << OCCURRENCE_BITS) - 1
/** Term indexes are kept modulo 2^24: far more than RECENT_WORDS, so distances stay exact. */
const POSITION_MASK = (1 << 24) - 1
/**
 * Term indexes are stored less this one, so an empty slot (all zeros, as a new table is) reads as
 * a shingle last seen at term −RECENT_WORDS − 1: out of reach of every term near it, and the table
 * needs no pass to set it up.
 */
const POSITION_ORIGIN = (POSITION_MASK - RECENT_WORDS) & POSITION_MASK
const RING_MASK = WORD_RING - 1

export interface RecurrenceHit {
  /** Characters of the recurring stretch when it tripped. */
  readonly stretchChars: number
  /** Occurrences of the newest shingle (in its chain of recurrences) when it tripped. */
  readonly occurrences: number
}

export class WordRecurrence {
  /** Per slot: a shingle's hash, then the term that last closed it and its occurrences, packed. */
  private table: Int32Array = EMPTY_INT32
  /** Next term of the chunker's ring to read. */
  private nextTerm = 0
  // The stretch: its score and term counts, and the running totals where it began.
  private score = 0
  private stretchTerms = 0
  private hotTerms = 0
  private lastOccurrences = 0
  private startChars = 0
  private startWords = 0
  private startNumbers = 0
  private startSymbols = 0
  private startMasked = 0
  /** Stretch length (characters) at which it is judged next. */
  private nextCheck: number

  /** The table is made at the first chunk (a stream that never gets that far needs none), or now when preallocated. */
  constructor(private readonly options: LongRepeatOptions, private readonly chunker: ContentChunker, private readonly buffers: GuardBuffers = new GuardBuffers()) {
    this.nextCheck = options.recurChars
    if (this.buffers.preallocate) this.table = this.buffers.make(Int32Array, 2 * TABLE_SIZE)
  }

  /** Read the words of the chunk the chunker just closed (after `charsSoFar` characters); a hit when the stretch trips. */
  push(charsSoFar: number): RecurrenceHit | null {
    if (this.readTerms()) this.restart(charsSoFar)
    const chars = charsSoFar - this.startChars
    if (this.score <= 0 || chars < this.options.recurChars || !this.hotEnough(chars) || !this.readsAsProse()) return null
    // Counting distinct words is O(stretch): at recurChars, then at each doubling (O(1) amortized).
    if (chars < this.nextCheck) return null
    this.nextCheck = 2 * chars
    return this.distinctWords(this.options.minWords) >= this.options.minWords ? { stretchChars: chars, occurrences: this.lastOccurrences } : null
  }

  /**
   * Each new term's shingle: its occurrences, then the stretch's score and counts. Runs once per
   * term of every reply, so the state lives in locals and the table is one array (key, newest
   * term and occurrences per slot). Returns whether the stretch restarted among these terms.
   */
  private readTerms(): boolean {
    const end = this.chunker.lastTermEnd
    const terms = this.chunker.terms
    const table = this.table.length > 0 ? this.table : (this.table = this.buffers.make(Int32Array, 2 * TABLE_SIZE))
    let score = this.score
    let stretch = this.stretchTerms
    let hot = this.hotTerms
    let occurrences = this.lastOccurrences
    let restarted = false
    for (let w = Math.max(this.nextTerm, SHINGLE_WORDS - 1); w < end; w++) {
      // The shingle's hash: each of its 3 terms multiplied by its own constant (order matters).
      const h = Math.imul(terms[(w - 2) & RING_MASK]!, 0x5bd1e995) ^ Math.imul(terms[(w - 1) & RING_MASK]! ^ 0x2545f491, 0x01000193) ^ terms[w & RING_MASK]!
      const slot = ((h ^ (h >>> 13)) & (TABLE_SIZE - 1)) * 2
      const kept = table[slot + 1]!
      occurrences = table[slot] === h && ((w - POSITION_ORIGIN - (kept >>> OCCURRENCE_BITS)) & POSITION_MASK) <= RECENT_WORDS ? (kept & OCCURRENCE_CAP) + 1 : 1
      table[slot] = h
      table[slot + 1] = (((w - POSITION_ORIGIN) & POSITION_MASK) << OCCURRENCE_BITS) | (occurrences < OCCURRENCE_CAP ? occurrences : OCCURRENCE_CAP)
      score += occurrences >= 2 ? 10 - SEEN_TENTHS : -SEEN_TENTHS
      if (score <= 0) {
        score = 0
        stretch = 0
        hot = 0
        restarted = true
        continue
      }
      // The share is counted from the stretch's first hot term on: the copy before it is seen
      // but cannot be hot yet, and a loop should not pay for its own warm-up.
      if (occurrences >= HOT_OCCURRENCES) hot++
      if (hot > 0) stretch++
    }
    this.nextTerm = end
    this.score = score
    this.stretchTerms = stretch
    this.hotTerms = hot
    this.lastOccurrences = occurrences
    return restarted
  }

  private hotEnough(chars: number): boolean {
    const share = chars >= 2 * this.options.recurChars ? LONG_HOT_SHARE : HOT_SHARE
    return this.hotTerms >= share * this.stretchTerms
  }

  /** The stretch (re)starts at the end of the current chunk. */
  private restart(charsSoFar: number): void {
    const c = this.chunker
    this.nextCheck = this.options.recurChars
    this.startChars = charsSoFar
    this.startWords = c.lastWordEnd
    this.startNumbers = c.lastNumberEnd
    this.startSymbols = c.lastSymbolEnd
    this.startMasked = c.lastMaskedEnd
  }

  private readsAsProse(): boolean {
    const c = this.chunker
    // Against the masked characters: indentation would dilute the symbols of code.
    if (c.lastSymbolEnd - this.startSymbols > MAX_SYMBOL_SHARE * (c.lastMaskedEnd - this.startMasked)) return false
    return c.lastWordEnd - this.startWords >= 2 * (c.lastNumberEnd - this.startNumbers)
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
