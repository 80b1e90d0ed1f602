/**
 * A counter of work done that a command prints ("embedded 5000 docs (15000/50000)", "Epoch 7/12",
 * "page 3 of 9", "42% done"). Masking numbers makes each run of a resumable batch read the same; a
 * counter that moved forward from each run to the next says the same call did new work each time.
 */

/** `N/M` or `N of M`, whole numbers; dates (2025/08/14) and versions fail `N ≤ M` or repeat. */
const FRACTION = /\b(\d{1,12})\s*(?:\/|\bof\b)\s*(\d{1,12})\b/g
const PERCENT = /\b(\d{1,3}(?:\.\d+)?)\s?%/

/** The output's first counter of work done (a fraction N/M with N ≤ M, else a percentage), or null. */
export const progressOf = (output: string): { readonly done: number; readonly of: number } | null => {
  for (const m of output.matchAll(FRACTION)) {
    const done = Number(m[1])
    const of = Number(m[2])
    if (of > 1 && done <= of) return { done, of }
  }
  const percent = PERCENT.exec(output)
  return percent === null || Number(percent[1]) > 100 ? null : { done: Number(percent[1]), of: 100 }
}

/**
 * Each output's counter is further on than the one before it, out of the same whole; the newest may
 * have none (the run that found nothing left to do).
 */
export const countingOn = (outputs: ReadonlyArray<string>): boolean => {
  const all = outputs.map(progressOf)
  const counters = all.at(-1) === null ? all.slice(0, -1) : all
  if (counters.length < 2 || counters.some((c) => c === null)) return false
  return counters.every((c, i) => i === 0 || (c!.of === counters[i - 1]!.of && c!.done > counters[i - 1]!.done))
}

/** The furthest count of each whole (`of`) that an output prints (a log's lines: `migrating table 3/9`). */
const furthestCounts = (output: string): Map<number, number> => {
  const out = new Map<number, number>()
  for (const m of output.matchAll(FRACTION)) {
    const done = Number(m[1])
    const of = Number(m[2])
    if (of > 1 && done <= of) out.set(of, Math.max(out.get(of) ?? -1, done))
  }
  return out
}

/**
 * The later output counts further out of a whole both print than the earlier one did (a log read
 * again: `migrating table 2/9`, then `… 3/9`): work went on between the two looks. A log whose new
 * lines only carry a new pid or restart count (a crash loop) counts nothing further.
 */
export const furtherOn = (before: string, after: string): boolean => {
  const earlier = furthestCounts(before)
  for (const [of, done] of furthestCounts(after)) if (done > (earlier.get(of) ?? Number.POSITIVE_INFINITY)) return true
  return false
}
