/**
 * The session as one run sees it, kept up to date one step at a time: the stored messages, the
 * request view (exclusions, crops, the latest compaction) with its request messages and token
 * tally, and the step records the loop detectors read. Each `refresh` asks the store only for what
 * changed since the last one (`SessionStore.changes`), appends new messages to all three, and
 * builds them again from the whole history only after a change to an earlier message (an
 * exclusion, a crop, a compaction) — so a step's own work does not grow with the session.
 * The views equal what `requestView` / `stepRecords` give on the whole history (history-view.test.ts).
 */
import { isCompaction, tallyChars, tokensOfTally, type CharTally } from "@loopguard/core/context"
import { persistedCrops, StepRecordLog } from "@loopguard/core/loops"
import { isAssistant, isUser, type CropMarker, type Message } from "@loopguard/core/model"
import { Effect } from "effect"
import { toRequestMessages } from "../compaction/Compactor.js"
import type { LlmRequest, RequestMessage } from "../llm/LLM.js"
import type { SessionChanges, SessionStoreShape, StoreCursor } from "../store/SessionStore.js"
import type { SessionStoreError } from "../store/SessionStoreError.js"
import { requestView } from "./request.js"

export interface HistoryViewOptions {
  /** Enforcing (not shadow): crops and compaction shape the request. */
  readonly enforce: boolean
  /** Stored reasoning-loop crops are re-applied (`loopStreakRecovery.enabled`). */
  readonly streakCrops: boolean
}

interface ViewState {
  readonly messages: Array<Message>
  readonly requests: Array<RequestMessage>
  readonly croppedIds: ReadonlyArray<string>
  readonly appendable: boolean
  /** Characters of `JSON.stringify` of each request message, summed (commas and brackets apart). */
  tally: { cjk: number; other: number }
}

const tallyOf = new WeakMap<RequestMessage, CharTally>()
const requestTally = (r: RequestMessage): CharTally => {
  let t = tallyOf.get(r)
  if (t === undefined) tallyOf.set(r, (t = tallyChars(JSON.stringify(r))))
  return t
}

/** A message contributes nothing to the request view: an excluded reply. */
const hidden = (m: Message): boolean => isAssistant(m) && m.excluded !== undefined

/** A message whose arrival or change reshapes earlier parts of the view. */
const reshapes = (m: Message): boolean => isCompaction(m) || (isUser(m) && (m.crops?.length ?? 0) > 0)

const isRealUser = (m: Message): boolean => isUser(m) && m.synthetic === undefined

const newestRealUser = (messages: ReadonlyArray<Message>): number => {
  for (let i = messages.length - 1; i >= 0; i--) if (isRealUser(messages[i]!)) return i
  return -1
}

/** The whole session, read with `messages` when the store cannot say what changed. */
const wholeSession = (store: SessionStoreShape, sessionId: string): Effect.Effect<SessionChanges, SessionStoreError> =>
  Effect.map(store.messages(sessionId), (all) => ({
    cursor: { journal: -1, writes: 0 },
    reset: true,
    changed: all.map((message, index) => ({ index, message })),
    length: all.length
  }))

/** One run's incrementally kept view of its session (see the module comment). */
export class HistoryView {
  private all: Array<Message> = []
  private cursor: StoreCursor | null = null
  private view: ViewState | null = null
  /** The loop detectors' step records, kept in step with `messages`. */
  readonly records = new StepRecordLog()
  private cropList: Array<CropMarker> = []
  private newestUser = -1
  /** Rebuilds of the request view so far (for tests: appends must not rebuild). */
  rebuilds = 0

  constructor(
    private readonly store: SessionStoreShape,
    private readonly sessionId: string,
    private readonly options: HistoryViewOptions
  ) {}

  /** The stored messages as of the last refresh; read-only, valid until the next refresh. */
  get messages(): ReadonlyArray<Message> {
    return this.all
  }

  /** Every crop marker persisted on the messages, oldest first (`persistedCrops(messages)`). */
  get crops(): ReadonlyArray<CropMarker> {
    return this.cropList
  }

  /** The place in `messages` of the newest real (non-synthetic) user message, -1 for none. */
  get newestUserAt(): number {
    return this.newestUser
  }

  /** Catches up with the store. */
  readonly refresh: Effect.Effect<void, SessionStoreError> = Effect.suspend(() =>
    Effect.flatMap(this.read(this.cursor), (changes) =>
      // A change past the end of what this view holds means it missed one: read the whole session.
      !changes.reset && (changes.changed[0]?.index ?? 0) > this.all.length ? this.read(null) : Effect.succeed(changes)
    ).pipe(Effect.map((changes) => this.apply(changes)))
  )

  private read(cursor: StoreCursor | null): Effect.Effect<SessionChanges, SessionStoreError> {
    return this.store.changes !== undefined ? this.store.changes(this.sessionId, cursor) : wholeSession(this.store, this.sessionId)
  }

  private apply(changes: SessionChanges): void {
    this.cursor = changes.cursor
    const before = this.all.length
    const changed = changes.changed
    const first = changed[0]?.index ?? before
    const contiguous = changed.every((c, i) => c.index === first + i) && first + changed.length === changes.length
    if (changes.reset || !contiguous || first < before - 1) {
      for (const c of changed) this.all[c.index] = c.message
      this.all.length = changes.length
      this.records.reset(this.all)
      this.cropList = [...persistedCrops(this.all)]
      this.newestUser = newestRealUser(this.all)
      this.view = null
      return
    }
    // A change to the newest message alone (the reply excluded or rewritten) is taken back and re-added.
    if (first === before - 1) this.retractNewest()
    this.all.length = first
    for (const c of changed) this.add(c.message)
  }

  /** Takes the newest message back out of the views (the request view is dropped when that cannot be done in place). */
  private retractNewest(): void {
    const old = this.all[this.all.length - 1]!
    this.records.popIf(old)
    if (isUser(old) && (old.crops?.length ?? 0) > 0) this.cropList.length -= old.crops!.length
    if (this.newestUser === this.all.length - 1) this.newestUser = newestRealUser(this.all.slice(0, -1))
    const v = this.view
    if (v === null) return
    // A view that is not appendable may depend on any message, hidden ones included (a crop's end).
    if (!v.appendable || reshapes(old)) {
      this.view = null
      return
    }
    if (hidden(old)) return
    // Without the newest, a view whose visible tail was cropped ends with a "Continue.": build it again.
    if (v.messages[v.messages.length - 1] !== old || this.tailCroppedWithout(v)) {
      this.view = null
      return
    }
    v.messages.pop()
    const t = requestTally(v.requests.pop()!)
    v.tally.cjk -= t.cjk
    v.tally.other -= t.other
  }

  /** Whether the newest visible message before the newest one is a reply the view's crops left out. */
  private tailCroppedWithout(v: ViewState): boolean {
    if (v.croppedIds.length === 0) return false
    for (let i = this.all.length - 2; i >= 0; i--) if (!hidden(this.all[i]!)) return v.croppedIds.includes(this.all[i]!.id)
    return false
  }

  private add(m: Message): void {
    this.all.push(m)
    this.records.push(m)
    if (isUser(m) && m.crops !== undefined) this.cropList.push(...m.crops)
    if (isRealUser(m)) this.newestUser = this.all.length - 1
    const v = this.view
    if (v === null) return
    if (!v.appendable || reshapes(m)) {
      this.view = null
      return
    }
    if (hidden(m)) return
    v.messages.push(m)
    const r = toRequestMessages([m])[0]!
    v.requests.push(r)
    const t = requestTally(r)
    v.tally.cjk += t.cjk
    v.tally.other += t.other
  }

  private current(): ViewState {
    if (this.view !== null) return this.view
    this.rebuilds++
    const built = requestView(this.all, this.options.enforce, this.options.streakCrops)
    const requests = toRequestMessages(built.messages)
    const tally = { cjk: 0, other: 0 }
    for (const r of requests) {
      const t = requestTally(r)
      tally.cjk += t.cjk
      tally.other += t.other
    }
    return (this.view = { messages: [...built.messages], requests, croppedIds: built.croppedIds, appendable: built.appendable, tally })
  }

  /** The request view's messages (what `requestView` gives on the whole history). */
  viewMessages(): ReadonlyArray<Message> {
    return this.current().messages
  }

  /** The request view's messages as request messages followed by `extra`, in a fresh array (one copy of the pointers). */
  requestMessages(extra: ReadonlyArray<RequestMessage> = []): Array<RequestMessage> {
    return this.current().requests.concat(extra)
  }

  /** Replies left out by persisted crops. */
  croppedIds(): ReadonlyArray<string> {
    return this.current().croppedIds
  }

  /**
   * `requestTokens(request)` for a request whose messages are this view's followed by `extra`,
   * without stringifying the history again: the character counts add up piece by piece.
   */
  estimateTokens(request: Pick<LlmRequest, "system" | "tools">, extra: ReadonlyArray<RequestMessage>): number {
    const v = this.current()
    const parts = [tallyChars(request.system ?? ""), tallyChars(JSON.stringify(request.tools)), ...extra.map(requestTally)]
    const count = v.requests.length + extra.length
    // JSON.stringify of the array adds its brackets and a comma between items.
    let cjk = v.tally.cjk
    let other = v.tally.other + 2 + Math.max(0, count - 1)
    for (const t of parts) {
      cjk += t.cjk
      other += t.other
    }
    return tokensOfTally({ cjk, other })
  }
}
