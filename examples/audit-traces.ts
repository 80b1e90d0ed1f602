/**
 * Auditing a folder of traces from code: three tiny trace v1 files (a clean run, a doom loop, a
 * broken line) are written to a temporary folder and audited with `auditFiles` from
 * `@loopguard/effect`, the same replay `loopguard audit` runs (every detector on, nothing enforced).
 *
 * Run: bun examples/audit-traces.ts   (or node --experimental-strip-types on Node >= 22)
 */
import { auditFiles, type AuditResult } from "@loopguard/effect"
import { Effect } from "effect"
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const jsonl = (lines: ReadonlyArray<unknown>) => lines.map((l) => (typeof l === "string" ? l : JSON.stringify(l))).join("\n") + "\n"
const bash = (id: string, command: string) => ({ id, name: "bash", input: { command } })

const traces: Record<string, string> = {
  "clean.jsonl": jsonl([
    { type: "user", text: "Run the tests" },
    { type: "assistant", text: "Running them.", toolCalls: [bash("c1", "npm test")], finish: "tool-calls" },
    { type: "tool-result", id: "c1", name: "bash", output: "12 passed", exitCode: 0 },
    { type: "assistant", text: "All 12 tests pass.", finish: "stop" }
  ]),
  "doom.jsonl": jsonl([
    { type: "user", text: "Build it" },
    { type: "assistant", text: "Building.", toolCalls: [bash("a", "make"), bash("b", "make"), bash("c", "make")], finish: "tool-calls" },
    { type: "tool-result", id: "a", name: "bash", output: "error", exitCode: 2 },
    { type: "tool-result", id: "b", name: "bash", output: "error", exitCode: 2 },
    { type: "tool-result", id: "c", name: "bash", output: "error", exitCode: 2 },
    { type: "assistant", text: "It still fails.", finish: "stop" }
  ]),
  "broken.jsonl": jsonl([{ type: "user", text: "go" }, "{not json"])
}

const folder = mkdtempSync(join(tmpdir(), "loopguard-audit-example-"))
let results: Array<AuditResult>
try {
  for (const [name, text] of Object.entries(traces)) writeFileSync(join(folder, name), text)
  const files = readdirSync(folder).filter((f) => f.endsWith(".jsonl")).sort().map((f) => join(folder, f))
  results = await Effect.runPromise(auditFiles(files))
} finally {
  rmSync(folder, { recursive: true, force: true })
}

for (const r of results) {
  const name = r.file.slice(folder.length + 1)
  if (r._tag === "failed") {
    console.log(`${name}: failed: ${r.errors[0]?.slice(folder.length + 1)}`)
    continue
  }
  const exit = r.exit ? `${r.exit.reason} at step ${r.exit.step}` : "none"
  console.log(`${name}: ${r.steps} steps, ${r.incidents.length} incident(s), first exit: ${exit}`)
  for (const i of r.incidents) console.log(`  step ${i.step}: ${i.detector} → ${i.action}`)
}

const byName = new Map(results.map((r) => [r.file.slice(folder.length + 1), r]))
const clean = byName.get("clean.jsonl")
const doom = byName.get("doom.jsonl")
const broken = byName.get("broken.jsonl")
const shown =
  clean?._tag === "audited" &&
  clean.incidents.length === 0 &&
  clean.exit?.reason === "final" &&
  doom?._tag === "audited" &&
  doom.incidents.some((i) => i.detector === "doom-loop" && i.step === 0) &&
  broken?._tag === "failed" &&
  broken.errors[0]?.includes("broken.jsonl:2:") === true
if (!shown) {
  console.error("audit-traces: the audit did not report what the traces contain")
  process.exit(1)
}
console.log("ok: one clean trace, one doom loop found at step 0, one broken line named by file:line")
