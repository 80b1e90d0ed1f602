import { describe, expect, test } from "bun:test"
import { Effect, Exit, Stream } from "effect"
import { batchedStream, NOT_YET, Turn } from "./batched-source.js"

const chunkSizes = <A>(s: Stream.Stream<A, string>) =>
  Effect.runPromiseExit(
    s.pipe(
      Stream.mapArray((chunk) => [chunk.length] as const),
      Stream.runCollect
    )
  )

describe("batchedStream", () => {
  test("parts already queued come as one chunk; a part that arrives later starts the next", async () => {
    let controller!: ReadableStreamDefaultController<number>
    const source = new ReadableStream<number>({ start: (c) => void (controller = c) })
    for (let i = 0; i < 10; i++) controller.enqueue(i)
    setTimeout(() => (controller.enqueue(10), controller.close()), 20)
    const exit = await chunkSizes(batchedStream(source, String))
    expect(exit).toEqual(Exit.succeed([10, 1]))
  })

  test("at most maxBatch parts per chunk, none lost, order kept", async () => {
    const source = new ReadableStream<number>({ start: (c) => { for (let i = 0; i < 25; i++) c.enqueue(i); c.close() } })
    const all = await Effect.runPromise(Stream.runCollect(batchedStream(source, String, { maxBatch: 10 })))
    expect(all).toEqual(Array.from({ length: 25 }, (_, i) => i))
    const sizes = await chunkSizes(batchedStream(new ReadableStream<number>({ start: (c) => { for (let i = 0; i < 25; i++) c.enqueue(i); c.close() } }), String, { maxBatch: 10 }))
    expect(sizes).toEqual(Exit.succeed([10, 10, 5]))
  })

  test("an error after some parts fails the stream after those parts, through onError", async () => {
    // (An error discards what is still queued in a ReadableStream, so it comes after a pause.)
    const source = new ReadableStream<number>({ start: (c) => { c.enqueue(1); c.enqueue(2); setTimeout(() => c.error(new Error("reset")), 20) } })
    const seen: Array<number> = []
    const exit = await Effect.runPromiseExit(Stream.runForEach(batchedStream(source, (e) => `wrapped: ${(e as Error).message}`), (n) => Effect.sync(() => void seen.push(n))))
    expect(seen).toEqual([1, 2])
    expect(exit).toEqual(Exit.fail("wrapped: reset"))
  })

  test("stopping early cancels the source (the HTTP request behind it is released)", async () => {
    let cancelled = false
    let n = 0
    const source = new ReadableStream<number>({ pull: (c) => void c.enqueue(n++), cancel: () => void (cancelled = true) }, { highWaterMark: 0 })
    const taken = await Effect.runPromise(Stream.runCollect(Stream.take(batchedStream(source, String), 3)))
    expect(taken).toEqual([0, 1, 2])
    await new Promise((r) => setTimeout(r, 10))
    expect(cancelled).toBe(true)
  })
})

describe("batchedStream with a read timeout", () => {
  const timeout = { ms: 60, onTimeout: () => "timed out" }

  test("a first part that never comes fails the stream with onTimeout", async () => {
    const started = Date.now()
    const exit = await Effect.runPromiseExit(Stream.runCollect(batchedStream(new ReadableStream<number>(), String, { timeout })))
    expect(exit).toEqual(Exit.fail("timed out"))
    expect(Date.now() - started).toBeGreaterThanOrEqual(50)
  })

  test("a silence after some parts fails after those parts; gaps shorter than the limit do not", async () => {
    // A wide margin between the gaps (20 ms) and the limit (400 ms): a loaded machine delays timers.
    const timeout = { ms: 400, onTimeout: () => "timed out" }
    const source = new ReadableStream<number>({
      start: (c) => {
        c.enqueue(1)
        setTimeout(() => c.enqueue(2), 20)
        setTimeout(() => c.enqueue(3), 40)
      }
    })
    const seen: Array<number> = []
    const exit = await Effect.runPromiseExit(Stream.runForEach(batchedStream(source, String, { timeout }), (n) => Effect.sync(() => void seen.push(n))))
    expect(seen).toEqual([1, 2, 3])
    expect(exit).toEqual(Exit.fail("timed out"))
  })

  test("a stream that ends in time does not time out, and no timer is left behind", async () => {
    const live = new Set<unknown>()
    const realSet = globalThis.setTimeout
    const realClear = globalThis.clearTimeout
    const spySet = ((fn: () => void, ms?: number) => {
      const id = realSet(() => (live.delete(id), fn()), ms)
      live.add(id)
      return id
    }) as unknown as typeof setTimeout
    const spyClear = ((id: ReturnType<typeof setTimeout>) => (live.delete(id), realClear(id))) as typeof clearTimeout
    // The spies are in place for the scope only: the real timer functions are back when it closes.
    const spying = Effect.acquireRelease(
      Effect.sync(() => ((globalThis.setTimeout = spySet), (globalThis.clearTimeout = spyClear))),
      () => Effect.sync(() => ((globalThis.setTimeout = realSet), (globalThis.clearTimeout = realClear)))
    )
    await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          yield* spying
          const source = new ReadableStream<number>({ start: (c) => (c.enqueue(1), realSet(() => (c.enqueue(2), c.close()), 10)) })
          expect(yield* Stream.runCollect(batchedStream(source, String, { timeout: { ms: 10_000, onTimeout: () => "no" } }))).toEqual([1, 2])
          // Interrupted while a timed read waits: the source is cancelled, which settles the read and clears its timer.
          const stalled = Stream.runDrain(batchedStream(new ReadableStream<number>(), String, { timeout: { ms: 10_000, onTimeout: () => "no" } }))
          yield* Effect.timeoutOption(stalled, "20 millis")
        })
      )
    )
    // Turn's setImmediate is not a timer; Effect's own 20 ms sleep was cleared or fired.
    expect(live.size).toBe(0)
  })
})

describe("batchedStream of a source still being opened", () => {
  const numbers = (...ns: Array<number>) => new ReadableStream<number>({ start: (c) => (ns.forEach((n) => c.enqueue(n)), c.close()) })

  test("the parts of a source that opens later come in order", async () => {
    const opening = new Promise<ReadableStream<number>>((resolve) => setTimeout(() => resolve(numbers(1, 2, 3)), 20))
    expect(await Effect.runPromise(Stream.runCollect(batchedStream(opening, String)))).toEqual([1, 2, 3])
  })

  test("an opening that fails fails the stream through onError", async () => {
    const exit = await Effect.runPromiseExit(Stream.runCollect(batchedStream(Promise.reject(new Error("refused")), (e) => `wrapped: ${(e as Error).message}`)))
    expect(exit).toEqual(Exit.fail("wrapped: refused"))
  })

  test("waiting for the opening counts against the first batch's time limit", async () => {
    const exit = await Effect.runPromiseExit(Stream.runCollect(batchedStream(new Promise<ReadableStream<number>>(() => {}), String, { timeout: { ms: 40, onTimeout: () => "timed out" } })))
    expect(exit).toEqual(Exit.fail("timed out"))
  })

  test("a source that opens after the stream was closed is cancelled (its request is released)", async () => {
    let cancelled = false
    let open: (s: ReadableStream<number>) => void = () => {}
    const opening = new Promise<ReadableStream<number>>((resolve) => (open = resolve))
    await Effect.runPromise(Effect.timeoutOption(Stream.runDrain(batchedStream(opening, String)), "10 millis"))
    open(new ReadableStream<number>({ cancel: () => void (cancelled = true) }))
    await new Promise((r) => setTimeout(r, 10))
    expect(cancelled).toBe(true)
  })
})

describe("Turn", () => {
  test("a read that settles before the turn wins; the turn has not passed yet", async () => {
    const turn = new Turn()
    expect(await turn.race(Promise.resolve("part"))).toBe("part")
    expect(turn.passed).toBe(false)
  })

  test("a read still pending at the next turn gives NOT_YET and stays pending", async () => {
    const turn = new Turn()
    let settle: (v: string) => void = () => {}
    const read = new Promise<string>((resolve) => (settle = resolve))
    expect(await turn.race(read)).toBe(NOT_YET)
    expect(turn.passed).toBe(true)
    settle("later")
    expect(await read).toBe("later")
  })

  test("many reads won before the turn, then one that waits for it", async () => {
    const turn = new Turn()
    for (let i = 0; i < 1000; i++) expect(await turn.race(Promise.resolve(i))).toBe(i)
    expect(await turn.race(new Promise<number>(() => {}))).toBe(NOT_YET)
  })

  test("a read that fails before the turn fails the race", async () => {
    const turn = new Turn()
    await expect(turn.race(Promise.reject(new Error("reset")))).rejects.toThrow("reset")
  })
})
