/**
 * Text normalization shared by the cross-step detectors. Kept apart so the text-loop key and the
 * reasoning-streak key provably use the same folding (case, whitespace).
 */

import { textHeads } from "../model/text-heads.js"

/** Trim, lowercase, and collapse every whitespace run (newlines included) into one space. */
export const foldText = (text: string): string => text.trim().toLowerCase().replace(/\s+/g, " ")

/** A head of `foldText(text)` whose first `need` characters are the whole folded text's (or all of it). */
export const foldTextHead = (text: string, need: number): string => {
  for (const { head, whole } of textHeads(text, 2 * need)) {
    const folded = foldText(head)
    if (whole || folded.length >= need) return folded
  }
  return foldText(text)
}

/**
 * Drop at most ONE leading filler phrase (checked in list order). Applied to folded text, so the
 * prefixes are matched lowercase with single spaces. Only one is dropped because "let me let me"
 * is itself a sign of a loop and should stay visible in the key.
 */
export const dropLeadingPrefix = (folded: string, prefixes: ReadonlyArray<string>): string => {
  for (const prefix of prefixes) {
    if (prefix.length > 0 && folded.startsWith(prefix)) return folded.slice(prefix.length)
  }
  return folded
}

/** The first `n` characters counted in code points, so a key never ends in half a surrogate pair. */
export const firstChars = (text: string, n: number): string => {
  if (text.length <= n) return text
  // Walks only the first n code points: a step's text can be megabytes, and spreading all of it
  // into an array cost more than the rest of the loop detectors together.
  let end = 0
  for (let k = 0; k < n && end < text.length; k++) {
    const c = text.charCodeAt(end)
    const pair = c >= 0xd800 && c <= 0xdbff && end + 1 < text.length && (text.charCodeAt(end + 1) & 0xfc00) === 0xdc00
    end += pair ? 2 : 1
  }
  return text.slice(0, end)
}
