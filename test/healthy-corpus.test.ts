/**
 * The long-period rule must not trip on healthy third-party text: docs, declaration files and JSON
 * from node_modules and the repository's docs, read in place, plus the long replies of the
 * development traces (when present). The full corpus with every source file is the bench
 * (`bun run test/bench/healthy-corpus.ts`, figures in docs/repetition.md).
 */
import { expect, test } from "bun:test"
import { join } from "node:path"
import { runCorpus, type Category } from "./bench/healthy-corpus.js"

test("no trip on docs, .d.ts, JSON and healthy trace replies", () => {
  const trips: Array<string> = []
  const categories: ReadonlySet<Category> = new Set(["docs", "dts", "json", "replies"])
  const rows = runCorpus(join(import.meta.dir, "..", "..", "shared", "traces"), (doc, trip) => void trips.push(`${doc.name}: ${JSON.stringify(trip)}`), categories)
  expect(trips).toEqual([])
  const files = rows.reduce((n, r) => n + r.files, 0)
  // The corpus really was read (node_modules is installed in every checkout that runs the tests).
  expect(files).toBeGreaterThan(1_000)
}, 180_000)
