import { expect, test } from "bun:test"
import { Effect } from "effect"
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { commandOnPath } from "./path-lookup.js"

test("commandOnPath finds executables only, in PATH's directories", () =>
  Effect.runSync(
    Effect.scoped(
      Effect.gen(function* () {
        const dir = yield* Effect.acquireRelease(
          Effect.sync(() => mkdtempSync(join(tmpdir(), "lg-path-"))),
          (d) => Effect.sync(() => rmSync(d, { recursive: true, force: true }))
        )
        writeFileSync(join(dir, "codex"), "#!/bin/sh\n")
        chmodSync(join(dir, "codex"), 0o755)
        writeFileSync(join(dir, "claude"), "not executable")
        chmodSync(join(dir, "claude"), 0o644)
        const has = commandOnPath({ PATH: `/nonexistent:${dir}` })
        expect(has("codex")).toBe(true)
        expect(has("claude")).toBe(false)
        expect(has("gemini")).toBe(false)
        expect(has(join(dir, "codex"))).toBe(false)
        expect(commandOnPath({})("codex")).toBe(false)
      })
    )
  ))
