/**
 * Server-sent events cut out of an upstream body as it arrives. Each event keeps its exact text
 * (the blank line included), so forwarding the events one after another gives the client the bytes
 * the upstream sent; the parsed `event:` name and `data:` payload are read beside it.
 */

export interface SseEvent {
  /** The event exactly as received, its terminating blank line included. */
  readonly raw: string
  /** The `event:` field, when there was one. */
  readonly event: string | undefined
  /** The `data:` lines joined by "\n" ("" when there were none). */
  readonly data: string
}

/**
 * Where the event that starts at `from` ends (just past its blank line), or -1 when it has not all
 * arrived; lines end at "\n" or "\r\n" (a text with no "\r" alone, which is nearly every stream).
 */
const eventEnd = (text: string, from: number): number => {
  let at = from
  for (;;) {
    const lf = text.indexOf("\n", at)
    if (lf === -1) return -1
    const next = text.charCodeAt(lf + 1)
    // "\n\n" or "\n\r\n" closes the event.
    if (next === 10) return lf + 2
    if (next === 13 && text.charCodeAt(lf + 2) === 10) return lf + 3
    if (lf + 1 >= text.length) return -1
    at = lf + 1
  }
}

/** Where the line break at `at` ends, or -1 when a "\r" ends the text (its "\n" may be still to come). */
const breakEnd = (text: string, at: number): number => {
  if (text.charCodeAt(at) !== 13) return at + 1
  if (at + 1 >= text.length) return -1
  return text.charCodeAt(at + 1) === 10 ? at + 2 : at + 1
}

/** The next "\r" or "\n" at or after `from`, or -1. */
const nextBreak = (text: string, from: number): number => {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 10 || c === 13) return i
  }
  return -1
}

/** `eventEnd` for a stream that ends lines with a "\r" alone too, as the event-stream format allows. */
const eventEndAnyBreak = (text: string, from: number): number => {
  let at = from
  for (;;) {
    const found = nextBreak(text, at)
    if (found === -1) return -1
    const line = breakEnd(text, found)
    if (line === -1 || line >= text.length) return -1
    const c = text.charCodeAt(line)
    // A line break right after a line break: the blank line that closes the event.
    if (c === 10) return line + 1
    if (c === 13) return line + 1 < text.length && text.charCodeAt(line + 1) === 10 ? line + 2 : line + 1
    at = line
  }
}

/** The value of a `name:` field line in `raw[at, end)`: one space after the colon is not part of it. */
const fieldValue = (raw: string, at: number, end: number): string => raw.slice(raw.charCodeAt(at) === 32 && at < end ? at + 1 : at, end)

/**
 * The `event:` and `data:` fields of one whole event. Lines are found by index, not split into
 * an array: this runs for every event of every stream. An event with a "\r" in it is split on every
 * line break the format allows ("\r\n", "\n", "\r").
 */
export const parseEvent = (raw: string): SseEvent => (raw.indexOf("\r") === -1 ? parseLfEvent(raw) : parseAnyBreakEvent(raw))

/** `parseEvent` of an event whose lines all end in "\n". */
const parseLfEvent = (raw: string): SseEvent => {
  let event: string | undefined
  let data: string | undefined
  for (let at = 0; at < raw.length; ) {
    const lf = raw.indexOf("\n", at)
    const next = lf === -1 ? raw.length : lf + 1
    // A line ends at "\n" or "\r\n"; a "\r" the body ends on without its "\n" stays in the line.
    const end = lf === -1 ? raw.length : lf > at && raw.charCodeAt(lf - 1) === 13 ? lf - 1 : lf
    if (raw.startsWith("data:", at)) {
      const value = fieldValue(raw, at + 5, end)
      data = data === undefined ? value : `${data}\n${value}`
    } else if (raw.startsWith("event:", at)) event = fieldValue(raw, at + 6, end)
    at = next
  }
  return { raw, event, data: data ?? "" }
}

/** `parseEvent` of an event with a "\r" in it. */
const parseAnyBreakEvent = (raw: string): SseEvent => {
  let event: string | undefined
  let data: string | undefined
  for (const line of raw.split(/\r\n|\r|\n/)) {
    if (line.startsWith("data:")) {
      const value = fieldValue(line, 5, line.length)
      data = data === undefined ? value : `${data}\n${value}`
    } else if (line.startsWith("event:")) event = fieldValue(line, 6, line.length)
  }
  return { raw, event, data: data ?? "" }
}

/** Whether lines may end in a "\r" alone in `text`: then events are cut by the slower scan that knows it. */
const hasLoneCr = (text: string): boolean => /\r(?!\n)/.test(text)

/** The whole events at the start of `text`, appended to `out`; returns where the first one not yet whole starts. */
const cutEvents = (text: string, out: Array<SseEvent>, anyBreak: boolean): number => {
  const end = anyBreak ? eventEndAnyBreak : eventEnd
  let from = 0
  for (let at = end(text, 0); at !== -1; at = end(text, from)) {
    out.push(parseEvent(text.slice(from, at)))
    from = at
  }
  return from
}

/** Every event of a whole text (what the relay held back), the last one too when its blank line never came. */
export const eventsOf = (text: string): Array<SseEvent> => {
  const out: Array<SseEvent> = []
  const rest = text.slice(cutEvents(text, out, hasLoneCr(text)))
  if (rest.trim() !== "") out.push(parseEvent(rest))
  return out
}

/** Text in, whole events out; a partial event waits for the rest. */
export class SseSplitter {
  private pending = ""
  private readonly decoder = new TextDecoder()
  /** Set once a "\r" not followed by "\n" arrived: lines may end in a "\r" alone in this stream. */
  private anyBreak = false

  /** The whole events completed by `chunk`. */
  push(chunk: Uint8Array): Array<SseEvent> {
    const decoded = this.decoder.decode(chunk, { stream: true })
    const text = this.pending + decoded
    // Tested on what arrived with the held text before it: a "\r" at the end of the last chunk may be a "\r\n" split in two.
    if (!this.anyBreak && decoded.indexOf("\r") !== -1) this.anyBreak = hasLoneCr(text.endsWith("\r") ? text.slice(0, -1) : text)
    const out: Array<SseEvent> = []
    const from = cutEvents(text, out, this.anyBreak)
    this.pending = from === 0 ? text : text.slice(from)
    return out
  }

  /** Characters received that do not yet make a whole event. */
  get buffered(): number {
    return this.pending.length
  }

  /** What is left at the end of the body (an event the upstream never closed), as one event. */
  rest(): SseEvent | null {
    const text = this.pending + this.decoder.decode()
    this.pending = ""
    return text.trim() === "" ? null : parseEvent(text)
  }
}

/** One event as text: `event:` line when named, then the data. */
export const sseText = (data: string, event?: string): string => `${event !== undefined ? `event: ${event}\n` : ""}data: ${data}\n\n`
