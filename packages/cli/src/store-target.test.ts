/** How a store's failure ends a command: which are the user's to fix (exit 2) and which end the run (exit 1). */
import { afterAll, expect, test } from "bun:test"
import { SessionStoreError } from "@loopguard/effect"
import { makeDurableStore, sqliteFile } from "@loopguard/effect/store"
import { Effect } from "effect"
import { mkdtempSync, openSync, rmSync, statSync, writeSync, closeSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { storeExitCode, storeFailure } from "./store-target.js"

const dir = mkdtempSync(join(tmpdir(), "loopguard-store-target-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const OPTIONS = { leaseMs: 30_000, busyTimeoutMs: 1_000, timeoutMs: 10_000 }

/** A SQLite store with a few sessions whose pages after the first (the schema) are overwritten. */
const damagedStore = async (): Promise<string> => {
  const target = join(dir, "damaged")
  await Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const store = yield* makeDurableStore(target, OPTIONS)
        for (let i = 0; i < 20; i++) yield* store.append(`s${i}`, { role: "user", id: `u${i}`, text: `hello ${i} `.repeat(50) })
      })
    )
  )
  const file = sqliteFile(target)
  const fd = openSync(file, "r+")
  const size = statSync(file).size
  writeSync(fd, Buffer.alloc(size - 4096, 0xde), 0, size - 4096, 4096)
  closeSync(fd)
  for (const journal of ["-wal", "-shm"]) rmSync(file + journal, { force: true })
  return target
}

test("a damaged database file is the user's to fix: exit 2, in the driver's words", async () => {
  const target = await damagedStore()
  const listed = await Effect.runPromise(Effect.result(Effect.scoped(Effect.flatMap(makeDurableStore(target, OPTIONS), (s) => s.list()))))
  expect(listed._tag).toBe("Failure")
  const error = (listed as { failure: SessionStoreError }).failure
  expect(error.message).toMatch(/malformed|not a database/)
  expect(storeExitCode(error)).toBe(2)
  expect(storeFailure(error)._tag).toBe("UsageError")
})

test("the same words from Node's driver (node:sqlite) count too; a full disk and a lost lease end the run (exit 1)", () => {
  const node = Object.assign(new Error("database disk image is malformed"), { code: "ERR_SQLITE_ERROR", errcode: 11 })
  expect(storeExitCode(new SessionStoreError({ reason: "unavailable", message: "could not list sessions", cause: { cause: node } }))).toBe(2)
  const full = Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" })
  expect(storeExitCode(new SessionStoreError({ reason: "unavailable", message: "could not write", cause: full }))).toBe(1)
  expect(storeExitCode(new SessionStoreError({ reason: "lease-lost", message: "lost" }))).toBe(1)
  expect(storeExitCode(new SessionStoreError({ reason: "locked", message: "held" }))).toBe(2)
})
