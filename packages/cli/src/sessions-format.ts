/**
 * Text for `loopguard sessions`: a listing, and one session as a person reads it. Calls written
 * ahead but never finished are called out, since that is what a resumed run will tell the model.
 */
import { reasoningOf, textOf, toolPartsOf, type Message, type ToolPart } from "@loopguard/core/model"
import type { SessionSummary } from "@loopguard/effect"

const when = (ms: number): string => new Date(ms).toISOString().replace("T", " ").replace(/\.\d+Z$/, "Z")

export const formatList = (sessions: ReadonlyArray<SessionSummary>, where: string): string => {
  if (sessions.length === 0) return `no sessions in ${where}`
  const rows = sessions.map((s) => [s.id, String(s.messages), String(s.steps), when(s.updatedAt), s.writer ?? "-"])
  const head = ["SESSION", "MESSAGES", "STEPS", "LAST WRITE", "WRITER"]
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
  const line = (r: ReadonlyArray<string>) => r.map((c, i) => c.padEnd(widths[i]!)).join("  ").trimEnd()
  return [line(head), ...rows.map(line)].join("\n")
}

const clip = (s: string, n = 160): string => {
  const one = s.replace(/\s+/g, " ").trim()
  return one.length > n ? one.slice(0, n - 1) + "…" : one
}

const toolLine = (p: ToolPart): string => {
  const call = `${p.name} ${clip(JSON.stringify(p.input ?? {}), 100)}`
  if (p.state === "running" || p.state === "pending") return `    tool ${call} → ${p.state}: no result recorded (interrupted; it may or may not have taken effect)`
  const exit = p.exitCode !== undefined ? ` exit ${p.exitCode}` : ""
  return `    tool ${call} → ${p.state}${exit}${p.output !== undefined && p.output !== "" ? `: ${clip(p.output, 80)}` : ""}`
}

export const formatSession = (id: string, messages: ReadonlyArray<Message>): string => {
  const out = [`session ${id}: ${messages.length} messages`]
  messages.forEach((m, i) => {
    if (m.role === "user") {
      out.push(`#${i} ${m.synthetic !== undefined ? `reminder (${m.synthetic})` : "user"}: ${clip(m.text)}`)
      return
    }
    const flags = [m.finish ?? "unfinished", ...(m.excluded !== undefined ? [`excluded: ${m.excluded}`] : []), ...(m.error !== undefined ? [`error: ${clip(m.error.message, 80)}`] : [])]
    out.push(`#${i} step ${m.step} assistant (${flags.join(", ")})`)
    const reasoning = reasoningOf(m)
    if (reasoning !== "") out.push(`    thinking: ${clip(reasoning)}`)
    const text = textOf(m, { includeSynthetic: true })
    if (text !== "") out.push(`    ${clip(text)}`)
    for (const p of toolPartsOf(m)) out.push(toolLine(p))
  })
  return out.join("\n")
}
