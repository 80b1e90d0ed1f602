/**
 * Log lines written a batch at a time. A proxy under load ends a request every few milliseconds,
 * and each line written on its own is a system call on the event loop that the other streams' chunks
 * wait behind (a pipe or a terminal is written synchronously on Node); lines kept for at most
 * `delayMs` and written together cost one call. `flush` writes what is kept at once (before the
 * process exits, and when the kept text passes `maxChars`).
 */
export interface BatchedLines {
  /** Keeps `text` (one or more whole lines) to be written with the next batch. */
  readonly write: (text: string) => void
  /** Writes every kept line now. */
  readonly flush: () => void
}

export const batchedLines = (out: (text: string) => void, delayMs: number, maxChars = 64 * 1024): BatchedLines => {
  let kept: Array<string> = []
  let chars = 0
  let timer: ReturnType<typeof setTimeout> | null = null
  const flush = () => {
    if (timer !== null) clearTimeout(timer)
    timer = null
    if (kept.length === 0) return
    const text = kept.join("")
    kept = []
    chars = 0
    out(text)
  }
  return {
    write: (text) => {
      kept.push(text)
      chars += text.length
      if (chars >= maxChars) return flush()
      // Unref'd: a batch never keeps the process alive; the exit hook flushes what is left.
      if (timer === null) timer = setTimeout(flush, delayMs).unref()
    },
    flush
  }
}
