/**
 * Human rendering of loopguard events for `run` and `demo`: one line per thing that happened,
 * and a live token counter while a reply streams (on a terminal).
 */
import type { LoopguardEvent, RunReport } from "@loopguard/effect"

const short = (v: unknown, n = 80): string => {
  const s = typeof v === "string" ? v : JSON.stringify(v)
  return s.length > n ? s.slice(0, n - 1) + "…" : s
}

const KIND_LABEL: Record<string, string> = {
  rate_limit: "rate limited",
  server: "server error",
  network: "network error",
  stream: "stream broke",
  unknown: "provider error"
}

export interface Renderer {
  readonly onEvent: (event: LoopguardEvent) => void
}

export const makeRenderer = (write: (line: string) => void, live: boolean): Renderer => {
  let counting = false
  let streamed = 0
  const endCounter = () => {
    if (counting) process.stdout.write("\n")
    counting = false
  }
  const line = (s: string) => {
    endCounter()
    write(s)
  }
  return {
    onEvent: (e) => {
      switch (e.type) {
        case "step.started":
          if (e.attempt === 1) line(`step ${e.step}`)
          return
        case "stream.progress":
          streamed = e.tokens
          if (live) {
            process.stdout.write(`\r  streaming… ${e.tokens} tokens`)
            counting = true
          }
          return
        case "step.finished":
          line(`  reply: ${e.outcome === "continue" ? "finished" : e.outcome} after ${streamed} streamed tokens (finish ${e.finish})`)
          streamed = 0
          return
        case "step.classified":
          line(`  class: ${e.class}${e.degraded ? " (degraded)" : ""} — ${e.reason}`)
          return
        case "recovery":
          line(`  recovery: ${e.action}${e.kind ? ` ${e.kind}` : ""}${e.text ? ` → "${short(e.text, 90)}"` : ""}`)
          return
        case "tool.started":
          line(`  tool ${e.name} ${short(e.input, 70)}`)
          return
        case "tool.finished":
          line(`    → ${e.state}${e.exitCode !== undefined ? `, exit ${e.exitCode}` : ""} (${Math.round(e.durationMs)} ms)`)
          return
        case "incident":
          line(`  ! ${e.detector}: ${e.action} ${short(e.detail, 100)}`)
          return
        case "session.retry.attempt":
          line(
            `  ${KIND_LABEL[e.kind] ?? e.kind}, retrying in ${(e.delayMs / 1000).toFixed(1)} s, attempt ${e.attempt}` +
              `${e.maxRetries !== null ? ` of ${e.maxRetries}` : ""} (${e.phase} phase: ${short(e.message, 60)})`
          )
          return
        case "session.retry.terminal":
          line(`  ✗ not retried (${e.kind}): ${short(e.message, 100)}`)
          return
        case "session.try_best.detected":
          line(`  ⏸ try-best: ${short((e.incident as { detail?: string }).detail ?? e.incident, 110)}`)
          return
        case "run.finished":
          endCounter()
          return
      }
    }
  }
}

export const formatReport = (r: RunReport): string => {
  const answer = r.finalText?.trim() ?? ""
  const lines = [
    ...(answer !== "" ? [answer.split("\n").map((l) => `│ ${l}`).join("\n")] : []),
    `── ${r.status.toUpperCase()}: ${r.reason} after ${r.stepsUsed} step(s), ${r.tokens.total} tokens${r.costUsd !== null ? `, $${r.costUsd.toFixed(4)}` : ""}`
  ]
  if (r.error) lines.push(`   error: ${r.error.tag}: ${r.error.message}`)
  if (r.blockedAt) lines.push(`   blocked at: ${r.blockedAt}`)
  if (r.completed.length > 0) lines.push(`   completed: ${r.completed.slice(-5).join("; ")}`)
  lines.push(`   next: ${r.suggestedNextStep}`)
  if (r.savedAt) lines.push(`   saved: ${r.savedAt}`)
  for (const sub of r.subagents ?? []) {
    lines.push(`   sub-agent ${sub.sessionId}: ${sub.reason} after ${sub.stepsUsed} step(s), ${sub.tokens.total} tokens (counted above)`)
  }
  return lines.join("\n")
}
