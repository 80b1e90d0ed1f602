import { expect, test } from "bun:test"
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { makeFolder } from "./make-folder.js"

test("makeFolder makes the missing levels; an existing folder is fine; a file in the way or a refusing file system is an error", () => {
  const dir = mkdtempSync(join(tmpdir(), "lg-folder-"))
  try {
    makeFolder(join(dir, "a", "b", "c"))
    expect(statSync(join(dir, "a", "b", "c")).isDirectory()).toBe(true)
    makeFolder(join(dir, "a"))
    writeFileSync(join(dir, "file"), "x")
    expect(() => makeFolder(join(dir, "file", "sub"))).toThrow()
    // Node 22's recursive mkdirSync never returns here; level by level it is one refusal.
    if (process.platform === "linux") expect(() => makeFolder("/proc/loopguard-nope/x")).toThrow()
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})
