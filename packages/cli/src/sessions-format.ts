/**
 * Text for `loopguard sessions`: a listing, and one session as a person reads it. Calls written
 * ahead but never finished are called out, since that is what a resumed run will tell the model.
 */
import { reasoningOf, textOf, toolPartsOf, type Message, type ToolPart } from "@loopguard/core/model"
import type { SessionSummary } from "@loopguard/effect"
import { terminalSafe } from "./render/terminal-safe.js"

const when = (ms: number): string => new Date(ms).toISOString().replace("T", " ").replace(/\.\d+Z$/, "Z")

export const formatList = (sessions: ReadonlyArray<SessionSummary>, where: string): string => {
  if (sessions.length === 0) return `no sessions in ${terminalSafe(where)}`
  // Ids and writers come from the store: whoever wrote it chose them.
  const rows = sessions.map((s) => [clip(s.id, 80), String(s.messages), String(s.steps), when(s.updatedAt), clip(s.writer ?? "-", 80)])
  const head = ["SESSION", "MESSAGES", "STEPS", "LAST WRITE", "WRITER"]
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
  const line = (r: ReadonlyArray<string>) => r.map((c, i) => c.padEnd(widths[i]!)).join("  ").trimEnd()
  return [line(head), ...rows.map(line)].join("\n")
}

/** Stored text on one line, terminal-safe, at most `n` characters. */
const clip = (s: string, n = 160): string => {
  const one = terminalSafe(s).replace(/\s+/g, " ").trim()
  return one.length > n ? one.slice(0, n - 1) + "…" : one
}

const toolLine = (p: ToolPart): string => {
  const call = `${clip(p.name, 60)} ${clip(JSON.stringify(p.input ?? {}), 100)}`
  if (p.state === "running" || p.state === "pending") return `    tool ${call} → ${p.state}: no result recorded (interrupted; it may or may not have taken effect)`
  const exit = p.exitCode !== undefined ? ` exit ${p.exitCode}` : ""
  return `    tool ${call} → ${p.state}${exit}${p.output !== undefined && p.output !== "" ? `: ${clip(p.output, 80)}` : ""}`
}

export const formatSession = (id: string, messages: ReadonlyArray<Message>): string => {
  const out = [`session ${clip(id, 80)}: ${messages.length} messages`]
  messages.forEach((m, i) => {
    if (m.role === "user") {
      out.push(`#${i} ${m.synthetic !== undefined ? `reminder (${clip(m.synthetic, 40)})` : "user"}: ${clip(m.text)}`)
      return
    }
    const flags = [clip(m.finish ?? "unfinished", 40), ...(m.excluded !== undefined ? [`excluded: ${clip(m.excluded, 40)}`] : []), ...(m.error !== undefined ? [`error: ${clip(m.error.message, 80)}`] : [])]
    out.push(`#${i} step ${m.step} assistant (${flags.join(", ")})`)
    const reasoning = reasoningOf(m)
    if (reasoning !== "") out.push(`    thinking: ${clip(reasoning)}`)
    const text = textOf(m, { includeSynthetic: true })
    if (text !== "") out.push(`    ${clip(text)}`)
    for (const p of toolPartsOf(m)) out.push(toolLine(p))
  })
  return out.join("\n")
}
