/**
 * A provider's ReadableStream as an Effect Stream whose chunks hold every part already waiting
 * when a pull is made. One network read often carries dozens of SSE events; handing them on one
 * at a time costs a pull (an Effect round trip through every stage) per part, which is most of
 * what a guarded step used to spend above a bare `streamText` loop.
 */
import { Cause, Channel, Effect, Scope, Stream } from "effect"

/** Most parts handed on in one chunk: bounds the latency a long burst adds to the first part. */
export const MAX_BATCH = 256

type ReadResult<A> = Awaited<ReturnType<ReadableStreamDefaultReader<A>["read"]>>

/** What `Turn.race` gives when the turn passed before the read settled. */
export const NOT_YET: unique symbol = Symbol("not-yet")

/**
 * The event loop's next turn, for one batch. A read goes through the SDK's chain of transform
 * streams, a few microtasks each, so "already queued" means "settled before the next turn", not
 * "settled at once". Each read waits on its own promise, settled by the read or by the turn,
 * whichever comes first: racing every read against one shared turn promise (`Promise.race`) hung
 * a reaction on that promise per read, and while a busy stream starves `setImmediate` those
 * reactions kept every part read since (about 10 000 of them, 9 MB of live heap mid-stream).
 */
export class Turn {
  passed = false
  private wake: ((v: typeof NOT_YET) => void) | null = null

  constructor() {
    setImmediate(() => {
      this.passed = true
      const wake = this.wake
      this.wake = null
      wake?.(NOT_YET)
    })
  }

  /** `read`'s result if it settles before the turn, else NOT_YET (the read stays pending). */
  race<R>(read: Promise<R>): Promise<R | typeof NOT_YET> {
    return new Promise<R | typeof NOT_YET>((resolve, reject) => {
      this.wake = resolve
      read.then(resolve, reject)
    })
  }
}

/** What a read that waited too long settles with (the stream then fails with `onTimeout`). */
const TIMED_OUT: unique symbol = Symbol("timed-out")

/** Longest wait for a batch's first part, and the error a longer one fails the stream with. */
export interface ReadTimeout<E> {
  readonly ms: number
  readonly onTimeout: () => E
}

export interface BatchedStreamOptions<E> {
  readonly maxBatch?: number
  readonly timeout?: ReadTimeout<E>
}

/**
 * Reads `source` in batches: the first part of a chunk is awaited, the rest are the ones already
 * queued. With `timeout`, a first part that takes longer than `timeout.ms` fails the stream: one
 * timer per batch, cleared when the read settles or the stream ends. A source still being opened
 * (a request waiting for its response headers) is awaited within the first batch's time limit.
 */
export const batchedStream = <A, E>(
  source: ReadableStream<A> | Promise<ReadableStream<A>>,
  onError: (error: unknown) => E,
  options: BatchedStreamOptions<E> = {}
): Stream.Stream<A, E> =>
  Stream.fromChannel(
    Channel.fromTransform((_, scope) =>
      Effect.gen(function* () {
        const maxBatch = options.maxBatch ?? MAX_BATCH
        const timeout = options.timeout
        let reader: ReadableStreamDefaultReader<A> | undefined
        let opening: Promise<ReadableStream<A>> | undefined
        if (source instanceof ReadableStream) reader = source.getReader()
        else opening = source
        // A read that lost the race is kept for the next pull (it may also hold an error).
        let pending: Promise<ReadResult<A>> | null = null
        let ended = false
        let closed = false
        let timer: ReturnType<typeof setTimeout> | undefined
        yield* Scope.addFinalizer(
          scope,
          Effect.sync(() => {
            closed = true
            clearTimeout(timer)
            if (!ended) reader?.cancel().catch(() => {})
          })
        )
        const openAndRead = (): Promise<ReadResult<A>> =>
          opening!.then((opened) => {
            // Opened after the stream was closed: nobody will read it, so it is released.
            if (closed) return opened.cancel().then(() => ({ done: true, value: undefined }) as ReadResult<A>)
            reader = opened.getReader()
            return reader.read()
          })
        const timed = (read: Promise<ReadResult<A>>, ms: number): Promise<ReadResult<A> | typeof TIMED_OUT> =>
          new Promise((resolve, reject) => {
            timer = setTimeout(() => resolve(TIMED_OUT), ms)
            read.then(
              (r) => (clearTimeout(timer), resolve(r)),
              (e) => (clearTimeout(timer), reject(e))
            )
          })
        const readBatch = async (): Promise<Array<A> | null> => {
          const read = pending ?? (reader === undefined ? openAndRead() : reader.read())
          const first = timeout === undefined ? await read : await timed(read, timeout.ms)
          if (first === TIMED_OUT) throw TIMED_OUT
          pending = null
          if (first.done) {
            ended = true
            return null
          }
          const batch: Array<A> = [first.value]
          const more = reader!
          const turn = new Turn()
          while (batch.length < maxBatch && !turn.passed) {
            const next = more.read()
            let r: ReadResult<A> | typeof NOT_YET
            try {
              r = await turn.race(next)
            } catch {
              pending = next // the error surfaces on the next pull, after the parts before it
              break
            }
            if (r === NOT_YET) {
              pending = next
              break
            }
            if (r.done) {
              pending = next
              break
            }
            batch.push(r.value)
          }
          return batch
        }
        const failure = (error: unknown): E => (error === TIMED_OUT && timeout !== undefined ? timeout.onTimeout() : onError(error))
        return Effect.flatMap(Effect.tryPromise({ try: readBatch, catch: failure }), (batch) =>
          batch === null ? Cause.done() : Effect.succeed(batch as unknown as readonly [A, ...Array<A>])
        )
      })
    )
  )
