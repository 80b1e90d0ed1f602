import { openSqlClient } from "@loopguard/effect/store"
import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { RequestRecord } from "./handler.js"
import { readRequestLog, sqlRequestLog } from "./store-state.js"

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

const inStore = <A>(use: (sql: Parameters<typeof readRequestLog>[0]) => Effect.Effect<A, unknown>) => {
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
