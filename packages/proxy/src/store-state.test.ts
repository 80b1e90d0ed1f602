/**
 * The backoff board in the store's database: what one replica holds, another reads; reads of one
 * upstream that arrive together share one statement.
 */
import { expect, test } from "bun:test"
import { openSqlClient } from "@loopguard/effect/store"
import { Effect, type Scope } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { BackoffBoard } from "./backoff.js"
import { sharedReads, sqlBackoff } from "./store-state.js"

const withTwoBoards = <A>(body: (a: BackoffBoard, b: BackoffBoard) => Promise<A>): Promise<A> => {
  const dir = mkdtempSync(join(tmpdir(), "lg-board-"))
  return Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const a = yield* boardOf(dir)
        const b = yield* boardOf(dir)
        return yield* Effect.promise(() => body(a, b))
      })
    )
  ).finally(() => rmSync(dir, { recursive: true, force: true }))
}

const boardOf = (dir: string): Effect.Effect<BackoffBoard, unknown, Scope.Scope> => Effect.flatMap(openSqlClient(dir, { busyTimeoutMs: 5_000 }), ({ client }) => sqlBackoff(client).pipe(Effect.orDie))

test("a hold one connection writes, the other reads; the later of two holds stays", async () => {
  await withTwoBoards(async (a, b) => {
    expect(await b.until("http://u/v1")).toBe(0)
    await a.hold("http://u/v1", 5_000)
    await a.hold("http://u/v1", 1_000)
    expect(await b.until("http://u/v1")).toBe(5_000)
    expect(await b.until("http://other/v1")).toBe(0)
  })
}, 20_000)

test("reads of one upstream made while a read is under way share it; the next read sees a hold written since", async () => {
  await withTwoBoards(async (a, b) => {
    const first = b.until("http://u/v1")
    // The same answer, not a statement each: a burst of requests is one read.
    expect(b.until("http://u/v1")).toBe(first)
    expect(b.until("http://other/v1")).not.toBe(first)
    expect(await first).toBe(0)
    await a.hold("http://u/v1", 7_000)
    const next = b.until("http://u/v1")
    expect(next).not.toBe(first)
    expect(await next).toBe(7_000)
  })
}, 20_000)

test("a board whose database stopped answering holds a request at most readMs, then rests: no request waits on it meanwhile", async () => {
  let asked = 0
  const frozen = (): Promise<number> => {
    asked += 1
    return new Promise(() => {})
  }
  const until = sharedReads(frozen, 50, 60_000)
  const started = Date.now()
  expect(await until("up")).toBe(0)
  expect(Date.now() - started).toBeGreaterThanOrEqual(45)
  const again = Date.now()
  expect(await Promise.all([until("up"), until("other")])).toEqual([0, 0])
  expect(Date.now() - again).toBeLessThan(45)
  expect(asked).toBe(1)
  // A board that answers is read as it answers, one read shared by the requests that ask together.
  let reads = 0
  const answering = sharedReads(async () => (reads += 1, 1234), 50, 60_000)
  expect(await Promise.all([answering("up"), answering("up")])).toEqual([1234, 1234])
  expect(reads).toBe(1)
})
