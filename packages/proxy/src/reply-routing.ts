/**
 * Where each event of a streamed reply goes on its way to the client. The relay asks; this holds no
 * socket and writes nothing, it hands back the text to write:
 * - written now: text, reasoning, an error event (the opening goes with it), and everything after
 *   the first of them;
 * - the opening: the protocol's opening events (response.created, message_start…) wait for the
 *   first content, so a reply refused or cut before any content still starts well-formed;
 * - held: from the first tool call on, until the reply ends, because a call whose arguments were
 *   cut off must never reach the client;
 * - the tail: from the finish event on, when calls the model wrote as text may replace it.
 */
import type { Seen } from "./protocol.js"

export class ReplyRouting {
  /** Events to write now. */
  private out = ""
  /** Whether any event was handed out to be written. */
  private wrote = false
  private held: string | null = null
  private opening = ""
  /** The opening events that went into `held` (they still start a reply whose held calls are dropped). */
  private heldOpening = ""
  private tail: string | null = null

  /** `keepsTail`: finish events are kept back (calls written as text may replace them). */
  constructor(private readonly keepsTail: boolean) {}

  /** One event the protocol's watch has seen, put where it goes. */
  route(raw: string, seen: Seen): void {
    if (this.held !== null || seen.toolCall === true) {
      if (this.held === null) this.heldOpening = this.opening
      this.held = (this.held ?? this.opening) + raw
      this.opening = ""
    } else if (this.tail !== null || (this.keepsTail && seen.finishing === true)) {
      this.tail = (this.tail ?? this.opening) + raw
      this.opening = ""
    } else if (!this.wrote && this.out === "" && seen.text === undefined && seen.reasoning === undefined && seen.end !== true && seen.error !== true) {
      this.opening += raw
    } else {
      this.out += this.opening + raw
      this.opening = ""
    }
  }

  /** Whether any event was handed out to be written. */
  get written(): boolean {
    return this.wrote
  }

  /** Whether events are held back until the reply ends (calls, or the tail). */
  get keepingBack(): boolean {
    return this.held !== null || this.tail !== null
  }

  get callsHeld(): boolean {
    return this.held !== null
  }

  /** The opening events held with the calls. */
  get openingOfHeld(): string {
    return this.heldOpening
  }

  /** The events to write now ("" for none). */
  takeOut(): string {
    const text = this.out
    this.out = ""
    return this.handed(text)
  }

  /** The held calls (and what came after them), once the relay found them whole. */
  takeHeld(): string {
    const text = this.held ?? ""
    this.held = null
    return this.handed(text)
  }

  /** The tail to write (the relay may write calls in its place), or null when there is none. */
  takeTail(): string | null {
    const text = this.tail
    this.tail = null
    if (text !== null) this.wrote = true
    return text
  }

  /** Opening events that never met any content (a reply with nothing in it still gets them). */
  takeOpening(): string {
    const text = this.opening
    this.opening = ""
    return this.handed(text)
  }

  /**
   * What still goes to the client before a cut's notice: the events to write now, then the held
   * calls when they are whole (they were the model's before the loop), else, when nothing was
   * written yet, the opening events held with them.
   */
  beforeCut(callsWhole: boolean): string {
    const passed = this.held !== null && callsWhole ? this.held : this.wrote ? "" : this.heldOpening
    const text = this.out + passed
    this.out = ""
    this.held = null
    return this.handed(text)
  }

  private handed(text: string): string {
    if (text !== "") this.wrote = true
    return text
  }
}
