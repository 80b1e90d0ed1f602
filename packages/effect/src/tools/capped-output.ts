/**
 * Output of a command kept within a fixed size while it streams: the first half of the budget
 * is kept as it arrives, the rest is a rolling tail. Memory stays bounded however much the
 * command writes (`yes` writes gigabytes), and the model still sees how it began and ended.
 */
export interface CappedOutput {
  readonly push: (chunk: string) => void
  /** Head, a note of how many characters were dropped, and tail. */
  readonly text: () => string
  readonly dropped: () => number
}

/** An output buffer that keeps the head and the tail up to `maxChars` while the output streams, counting what it drops. */
export const makeCappedOutput = (maxChars: number): CappedOutput => {
  const headLimit = Math.ceil(maxChars / 2)
  const tailLimit = maxChars - headLimit
  let head = ""
  let tail = ""
  let dropped = 0
  const push = (chunk: string): void => {
    if (head.length < headLimit) {
      const room = headLimit - head.length
      head += chunk.slice(0, room)
      chunk = chunk.slice(room)
      if (chunk.length === 0) return
    }
    tail += chunk
    // Trim only when the tail is twice its budget, so a stream of small chunks costs O(n).
    if (tail.length > tailLimit * 2 || tail.length > tailLimit + 65_536) {
      const cut = tail.length - tailLimit
      dropped += cut
      tail = tail.slice(cut)
    }
  }
  const text = (): string => {
    const extra = Math.max(0, tail.length - tailLimit)
    const total = dropped + extra
    const kept = tail.slice(extra)
    return total === 0 ? head + kept : `${head}\n…[${total} characters of output dropped]…\n${kept}`
  }
  return { push, text, dropped: () => dropped + Math.max(0, tail.length - tailLimit) }
}
