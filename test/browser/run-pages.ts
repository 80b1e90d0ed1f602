/** Pages of known runs for the browser tests and the bench: audited in this process, written to a folder. */
import { auditConfig, auditFile } from "@loopguard/effect/audit"
import { Effect } from "effect"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { collectRunPage } from "../../packages/cli/src/html/collect-page.js"
import { renderRunPage } from "../../packages/cli/src/html/run-page.js"
import type { RunPage } from "../../packages/cli/src/html/page-model.js"

/** Audits `path` (named `name` on the page) and writes its page to `out`; the page's data. */
export const writePageOf = async (path: string, out: string, name: string = path): Promise<RunPage> => {
  const config = auditConfig()
  const r = await Effect.runPromise(auditFile({ path, name }, config))
  if (r._tag !== "audited") throw new Error(r.errors.join("\n"))
  const page = await Effect.runPromise(collectRunPage(r, path, config.input.maxLineBytes))
  writeFileSync(out, renderRunPage(page))
  return page
}

/**
 * A generated trace v1 run of `steps` steps that goes round in circles in places: a test command
 * failing the same way a few times in a row every 250 steps, between varied reads and edits.
 */
export const writeLongTrace = (dir: string, steps: number): string => {
  const lines: Array<string> = [JSON.stringify({ type: "session", id: "long", model: "gpt-4o" }), JSON.stringify({ type: "user", text: "Make the test suite pass" })]
  for (let i = 0; i < steps; i++) {
    const looping = i % 250 >= 245
    const call = looping ? { id: `c${i}`, name: "bash", input: { command: "npm test" } } : i % 3 === 0 ? { id: `c${i}`, name: "edit", input: { path: `src/f${i}.ts` } } : { id: `c${i}`, name: "bash", input: { command: `cat src/f${i}.ts` } }
    lines.push(JSON.stringify({ type: "assistant", reasoning: `Step ${i}: looking at f${i}.`, text: `Working on file ${i}.`, toolCalls: [call], finish: "tool-calls", usage: { inputTokens: 1000 + i, outputTokens: 50 } }))
    const result = looping
      ? { type: "tool-result", id: `c${i}`, name: "bash", output: "FAIL test/a.test.ts\nexpected 1, got 2", exitCode: 1 }
      : call.name === "edit"
        ? { type: "tool-result", id: `c${i}`, name: "edit", output: "ok", path: `src/f${i}.ts`, diff: `--- a/src/f${i}.ts\n+++ b/src/f${i}.ts\n@@ -1 +1 @@\n-old ${i}\n+new ${i}` }
        : { type: "tool-result", id: `c${i}`, name: "bash", output: `export const v${i} = ${i}\n`, exitCode: 0 }
    lines.push(JSON.stringify(result))
  }
  const path = join(dir, `long-${steps}.jsonl`)
  writeFileSync(path, lines.join("\n") + "\n")
  return path
}
