/**
 * Text normalization shared by the cross-step detectors. Kept apart so the text-loop key and the
 * reasoning-streak key provably use the same folding (case, whitespace).
 */

/** Trim, lowercase, and collapse every whitespace run (newlines included) into one space. */
export const foldText = (text: string): string => text.trim().toLowerCase().replace(/\s+/g, " ")

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
  return Array.from(text).slice(0, Math.max(0, n)).join("")
}
