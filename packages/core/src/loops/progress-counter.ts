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
