import { EXIT_REASONS } from "@loopguard/core/model"
import { expect, test } from "bun:test"
import { readFileSync } from "node:fs"

test("README.md and docs/run-loop.md list every exit reason", () => {
  for (const file of ["../README.md", "../docs/run-loop.md"]) {
    const doc = readFileSync(new URL(file, import.meta.url), "utf8")
    expect({ file, missing: EXIT_REASONS.filter((r) => !doc.includes(`\`${r}\``)) }).toEqual({ file, missing: [] })
  }
})
