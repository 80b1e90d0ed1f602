/**
 * Refusal detection (docs/rollback.md; not one exact English string). A reply is a refusal
 * when a phrase of the table occurs in its folded text (see `fold-text.ts`) AND either
 *
 * - the phrase starts within the first `leadChars` characters (the reply opens with it), or
 * - the whole folded reply is at most `shortReplyChars` characters (a short reply).
 *
 * A long answer that merely quotes a refusal in its body is not one: rolling it back would throw
 * away real work. Lengths are UTF-16 units of the folded text. Never throws.
 */
import { findPhrase, foldPhraseHead, foldPhraseText } from "./fold-text.js"
import { DEFAULT_REFUSAL_PHRASES } from "./refusal-phrases.js"
import type { RefusalPhrase } from "./refusal-phrases.js"

export interface RefusalOptions {
  readonly phrases: ReadonlyArray<RefusalPhrase>
  readonly leadChars: number
  readonly shortReplyChars: number
}

export const DEFAULT_REFUSAL_OPTIONS: RefusalOptions = {
  phrases: DEFAULT_REFUSAL_PHRASES,
  leadChars: 80,
  shortReplyChars: 300
}

export interface RefusalMatch {
  readonly phrase: string
  readonly language: string
  /** Where the phrase starts in the folded text. */
  readonly at: number
}

const folded = new WeakMap<ReadonlyArray<RefusalPhrase>, ReadonlyArray<readonly [RefusalPhrase, string]>>()

const foldedPhrases = (phrases: ReadonlyArray<RefusalPhrase>): ReadonlyArray<readonly [RefusalPhrase, string]> => {
  let rows = folded.get(phrases)
  if (rows === undefined) {
    rows = phrases.map((p) => [p, foldPhraseText(p.phrase)] as const)
    folded.set(phrases, rows)
  }
  return rows
}

/**
 * Characters at the end of a folded head that may differ from the whole reply's fold: a cut
 * after whitespace can only change the contraction its last words take ("will" | "not" → "wont").
 */
const HEAD_MARGIN = 16

/** The refusal phrase a reply's text matches (several languages), or null. */
export const detectRefusal = (text: string, options: Partial<RefusalOptions> = {}): RefusalMatch | null => {
  const opts: RefusalOptions = { ...DEFAULT_REFUSAL_OPTIONS, ...options }
  if (typeof text !== "string" || text.length === 0) return null
  const rows = foldedPhrases(opts.phrases)
  // A match counts when it starts within leadChars, or anywhere in a short reply: a folded head
  // long enough to decide both is all a long reply needs (a refusal is not 500 kB).
  const longest = rows.reduce((n, [, phrase]) => Math.max(n, phrase.length), 0)
  const need = Math.max(opts.shortReplyChars, opts.leadChars + longest) + 1 + HEAD_MARGIN
  const { body, whole } = foldPhraseHead(text, need)
  const short = whole && body.length <= opts.shortReplyChars
  let best: RefusalMatch | null = null
  for (const [row, phrase] of rows) {
    const at = findPhrase(body, phrase)
    if (at === -1 || (!short && at > opts.leadChars)) continue
    if (best === null || at < best.at) best = { phrase: row.phrase, language: row.language, at }
  }
  return best
}
