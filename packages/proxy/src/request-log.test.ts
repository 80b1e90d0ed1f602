import { openSqlClient } from "@loopguard/effect/store"
import { describe, expect, test } from "bun:test"
import { Effect, type Scope } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { RequestRecord } from "./handler.js"
import { groupCommit, readRequestLog, sqlRequestLog } from "./store-state.js"

const record = (session: string, action: RequestRecord["action"], ms: number): RequestRecord => ({
  session,
  protocol: "chat",
  model: "m",
  action,
  incidents: [],
  outcome: "completed",
  status: 200,
  retries: 0,
  ms
})

const inStore = <A>(use: (sql: Parameters<typeof readRequestLog>[0]) => Effect.Effect<A, unknown, Scope.Scope>) => {
  const dir = mkdtempSync(join(tmpdir(), "lg-request-log-"))
  return Effect.runPromise(Effect.scoped(Effect.flatMap(openSqlClient(dir), ({ client }) => use(client)))).finally(() => rmSync(dir, { recursive: true, force: true }))
}

describe("the proxy's request log", () => {
  test("a store the proxy never wrote to has no requests, and reading it is no error", async () => {
    expect(await inStore((sql) => readRequestLog(sql, "s"))).toEqual([])
  })

  test("one session's records, oldest first; a damaged row is skipped", async () => {
    const got = await inStore((sql) =>
      Effect.gen(function* () {
        const log = yield* sqlRequestLog(sql)
        yield* Effect.promise(() => log(record("s", "pass", 1)))
        yield* Effect.promise(() => log(record("other", "pass", 2)))
        yield* sql`INSERT INTO loopguard_proxy_requests (session_id, at, record) VALUES (${"s"}, ${Date.now() + 5}, ${"{not json"})`
        yield* sql`INSERT INTO loopguard_proxy_requests (session_id, at, record) VALUES (${"s"}, ${Date.now() + 6}, ${JSON.stringify({ session: "s" })})`
        yield* sql`INSERT INTO loopguard_proxy_requests (session_id, at, record) VALUES (${"s"}, ${Date.now() + 10}, ${JSON.stringify(record("s", "stop", 3))})`
        return yield* readRequestLog(sql, "s")
      })
    )
    expect(got.map((r) => [r.record.action, r.record.ms])).toEqual([
      ["pass", 1],
      ["stop", 3]
    ])
    expect(got[0]!.at).toBeLessThanOrEqual(got[1]!.at)
  })
})

describe("the proxy's request log under load", () => {
  test("records that arrive together are written together, more than one statement's worth too, and all read back", async () => {
    const got = await inStore((sql) =>
      Effect.gen(function* () {
        const log = yield* sqlRequestLog(sql)
        const failed = yield* Effect.promise(() => Promise.all(Array.from({ length: 450 }, (_, i) => log(record("s", "pass", i)))))
        expect(failed.every((f) => f === null)).toBe(true)
        return yield* readRequestLog(sql, "s")
      })
    )
    expect(got.map((r) => r.record.ms).sort((a, b) => a - b)).toEqual(Array.from({ length: 450 }, (_, i) => i))
  })
})

describe("the proxy's request log at shutdown", () => {
  test("records still queued when its scope closes are written before the connection closes", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lg-request-log-"))
    try {
      await Effect.runPromise(
        Effect.scoped(
          Effect.gen(function* () {
            const { client } = yield* openSqlClient(dir)
            const log = yield* sqlRequestLog(client)
            // Not waited for: the proxy logs each request and goes on.
            for (let i = 0; i < 60; i++) void log(record("s", "pass", i))
          })
        )
      )
      const kept = await Effect.runPromise(Effect.scoped(Effect.flatMap(openSqlClient(dir), ({ client }) => readRequestLog(client, "s"))))
      expect(kept.length).toBe(60)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe("group commit", () => {
  test("idle, an item is written at once; what arrives while a write runs goes in the next write, together; a failure reaches each item of its write", async () => {
    const batches: Array<ReadonlyArray<number>> = []
    let release: () => void = () => {}
    const { add: write } = groupCommit(async (batch: ReadonlyArray<number>) => {
      batches.push(batch)
      // The first write is held until the test lets it go.
      if (batches.length === 1) await new Promise<void>((done) => (release = done))
      return batch.includes(4) ? "disk full" : null
    })
    const first = write(1)
    expect(batches).toEqual([[1]])
    const rest = [2, 3, 4].map((n) => write(n))
    expect(batches).toEqual([[1]])
    release()
    expect(await Promise.all([first, ...rest])).toEqual([null, "disk full", "disk full", "disk full"])
    expect(batches).toEqual([[1], [2, 3, 4]])
    expect(await write(5)).toBe(null)
    expect(batches).toEqual([[1], [2, 3, 4], [5]])
  })
})
