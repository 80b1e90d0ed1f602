import { Effect } from "effect"
import { auditTrace } from "@loopguard/effect/audit"
import { generateHarnessTraces } from "../harness-traces/generate.js"
for (const t of generateHarnessTraces(Number(process.argv[2] ?? 1), 300)) {
  
  const r = await Effect.runPromise(auditTrace(t.file, t.text))
  if (r._tag !== "audited") continue
  const bad = r.incidents.filter((i) => i.kind === "loop" && !t.episodes.some((e) => i.step >= e.start_step && i.step <= e.end_step))
  if (bad.length) console.log(t.file, JSON.stringify(t.episodes.map(e=>[e.start_step,e.end_step])), "\n  " + bad.map((i) => `${i.step} ${i.detector}:${i.action} ${JSON.stringify(i.detail).slice(0, 250)}`).join("\n  "))
}
