/**
 * The two test suites. Every test file is in exactly one:
 * - quick (`bun run test`): everything not listed below; what a change is checked with locally.
 * - end-to-end (`bun run test:e2e`): the files listed in END_TO_END, slow or needing outside tools
 *   (real agent CLIs, a browser, tmux, Postgres, many spawned CLIs). CI runs both (`bun run test:all`).
 * A file moves between suites by adding or removing its line here; scripts/test-suites.test.ts
 * checks that every entry still names a test file.
 */
import { Glob } from "bun"
import { readdirSync } from "node:fs"
import { join } from "node:path"

export interface EndToEndEntry {
  /** A glob relative to the repository root. */
  readonly pattern: string
  /** Why it is not in the quick suite (a measured time or a tool it needs). */
  readonly why: string
}

export const END_TO_END: ReadonlyArray<EndToEndEntry> = []

/** A test file's name as bun test finds it (its default name patterns). */
const TEST_FILE = /(\.test|_test|\.spec|_spec)\.(ts|tsx|js|jsx|mts|cts|mjs|cjs)$/

/** Every test file under `root` outside node_modules and hidden folders (as bun test skips them), as sorted paths relative to it. */
export const testFiles = (root: string, dir = ""): ReadonlyArray<string> =>
  readdirSync(join(root, dir), { withFileTypes: true })
    .flatMap((e) => {
      const path = dir === "" ? e.name : `${dir}/${e.name}`
      if (e.isDirectory()) return e.name === "node_modules" || e.name.startsWith(".") ? [] : testFiles(root, path)
      return e.isFile() && TEST_FILE.test(e.name) ? [path] : []
    })
    .sort()

/** Whether `file` (relative to the root) belongs to the end-to-end suite. */
export const isEndToEnd = (file: string, entries: ReadonlyArray<EndToEndEntry> = END_TO_END): boolean =>
  entries.some((e) => new Glob(e.pattern).match(file))

/** The files of each suite; together they are `files`, each once. */
export const splitSuites = (files: ReadonlyArray<string>, entries: ReadonlyArray<EndToEndEntry> = END_TO_END) => ({
  quick: files.filter((f) => !isEndToEnd(f, entries)),
  e2e: files.filter((f) => isEndToEnd(f, entries))
})
