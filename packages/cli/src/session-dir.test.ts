import { expect, test } from "bun:test"
import { Effect } from "effect"
import { mkdtempSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ensureWritableDir } from "./session-dir.js"

test("a --session-dir folder the CLI makes is its owner's only (0700), and so are the parents it makes", async () => {
  const base = mkdtempSync(join(tmpdir(), "lg-session-dir-"))
  const dir = join(base, "a", "sessions")
  await Effect.runPromise(ensureWritableDir(dir, "--session-dir"))
  expect(statSync(dir).mode & 0o777).toBe(0o700)
  expect(statSync(join(base, "a")).mode & 0o777).toBe(0o700)
})
