/**
 * The streamed audit against the whole-text audit it replaced, on every development trace (read in
 * place, never copied): the same incidents, exit, steps and notes. In the end-to-end suite (it reads
 * the whole corpus).
 */
import { describe, expect, test } from "bun:test"
import { readdirSync } from "node:fs"
import { join } from "node:path"
import { Effect } from "effect"
import { DEV_TRACES_DIR, devTraceTestName, devTracesPresent, readTrace } from "../../../core/src/trace/dev-traces.fixture.js"
import { auditConfig } from "./audit-config.js"
import { auditFile } from "./audit-file.js"
import { auditTrace } from "./audit-trace.js"

// Without the traces the test is reported as skipped (with the reason in its name), never passed without running.
const present = devTracesPresent("the streamed-audit comparison")

describe("audit of a file, streamed", () => {
  test.skipIf(!present)(
    devTraceTestName("every development trace gives exactly the whole-text audit (incidents, exit, steps, notes)", present),
    async () => {
      const files = readdirSync(DEV_TRACES_DIR).filter((f) => f.endsWith(".jsonl"))
      expect(files.length).toBeGreaterThan(40)
      const config = auditConfig()
      for (const f of files) {
        const path = join(DEV_TRACES_DIR, f)
        const text = await readTrace(f)
        const [streamed, whole] = await Effect.runPromise(Effect.all([auditFile(path, config), auditTrace(path, text, config)]))
        expect({ f, r: streamed }).toEqual({ f, r: whole })
      }
    },
    120_000
  )

})
