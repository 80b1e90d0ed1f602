/**
 * One session's messages in memory, with the place each write touched, so a reader that comes
 * back every step gets only what changed since its last visit instead of a copy of the whole
 * history (docs/performance.md, "What keeps a step cheap"). The memory store keeps sessions in it; the
 * SQL store keeps one per session it holds the write lease of, as a mirror of its rows.
 */
import type { Message } from "@loopguard/core/model"

/** Where a reader stands in one journal; null before its first read. */
export interface StoreCursor {
  /** Which journal the cursor belongs to: another one (a reloaded mirror) means "start again". */
  readonly journal: number
  /** Writes seen so far. */
  readonly writes: number
}

/** What changed in a session since a cursor. */
export interface SessionChanges {
  /** Pass this on the next call. */
  readonly cursor: StoreCursor
  /** `changed` is the whole session: the first read, or the cursor belongs to another journal. */
  readonly reset: boolean
  /** Messages added or replaced since the cursor with their place, each place once, in place order. */
  readonly changed: ReadonlyArray<{ readonly index: number; readonly message: Message }>
  /** Messages in the session now. */
  readonly length: number
}

let journals = 0

/** A session's messages plus the place each write touched (append-only in spirit: replacements keep their place). */
export class SessionJournal {
  readonly id = ++journals
  private readonly list: Array<Message> = []
  /** The place each write touched, oldest first: one small number per write. */
  private readonly touched: Array<number> = []
  /** The newest place of each id: a write finds its message without a walk over the session. */
  private readonly place = new Map<string, number>()

  constructor(messages: ReadonlyArray<Message> = []) {
    for (const m of messages) {
      this.place.set(m.id, this.list.length)
      this.list.push(m)
    }
  }

  /** The messages now; read-only, and only valid until the next write. */
  get messages(): ReadonlyArray<Message> {
    return this.list
  }

  /** Whether a message with this id is held. */
  has(id: string): boolean {
    return this.place.has(id)
  }

  append(message: Message): void {
    this.touched.push(this.list.length)
    this.place.set(message.id, this.list.length)
    this.list.push(message)
  }

  /** Replaces the message with this id (the newest such), or appends it when there is none. */
  put(message: Message): void {
    const i = this.place.get(message.id)
    if (i === undefined) return this.append(message)
    this.list[i] = message
    this.touched.push(i)
  }

  /** Replaces the message with this id by `f` of it; nothing when there is none. */
  modify(id: string, f: (m: Message) => Message): void {
    const i = this.place.get(id)
    if (i === undefined) return
    this.list[i] = f(this.list[i]!)
    this.touched.push(i)
  }

  /** What changed since `cursor`: only the touched places, unless the cursor is not this journal's. */
  since(cursor: StoreCursor | null): SessionChanges {
    const now: StoreCursor = { journal: this.id, writes: this.touched.length }
    if (cursor === null || cursor.journal !== this.id || cursor.writes > this.touched.length) {
      return { cursor: now, reset: true, changed: this.list.map((message, index) => ({ index, message })), length: this.list.length }
    }
    const places = [...new Set(this.touched.slice(cursor.writes))].sort((a, b) => a - b)
    return { cursor: now, reset: false, changed: places.map((index) => ({ index, message: this.list[index]! })), length: this.list.length }
  }
}
