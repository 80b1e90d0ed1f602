import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { existsSync, mkdtempSync, statSync, symlinkSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { makeSqliteStore, sqliteFile } from "./durable.js"
import { storeSuite } from "./store-suite.fixture.js"

describe("SQLite SessionStore", () => {
  storeSuite("sqlite", { fresh: async () => mkdtempSync(join(tmpdir(), "lg-sqlite-")) })
})

describe("the sessions file is the store's own", () => {
  const open = (dir: string) => Effect.runPromise(Effect.scoped(Effect.asVoid(makeSqliteStore(dir))))

  test("the folder it makes is its owner's only (0700), and so is the file (0600)", async () => {
    const dir = join(mkdtempSync(join(tmpdir(), "lg-sqlite-mode-")), "sessions", "here")
    await open(dir)
    expect(statSync(dir).mode & 0o777).toBe(0o700)
    expect(statSync(sqliteFile(dir)).mode & 0o777).toBe(0o600)
  })

  test("a sessions.db that is a symbolic link is refused, and nothing is made where it points", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lg-sqlite-link-"))
    const target = join(dir, "elsewhere.db")
    symlinkSync(target, sqliteFile(dir))
    const failed = await open(dir).then(() => null, (e: unknown) => e)
    expect(String(failed)).toContain("symbolic link")
    expect(existsSync(target)).toBe(false)
  })
})
