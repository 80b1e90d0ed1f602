/**
 * What a run's page shows, as plain data: each step cut to what a reader looks at (long texts
 * clipped, every string passed through the redactor), the incidents and the run's outcome. The
 * page embeds this as JSON and draws it in the browser.
 */
import type { AssistantMessage, ToolPart, UserMessage } from "@loopguard/core/model"
import type { AuditIncident } from "@loopguard/effect/audit"

export interface CallView {
  readonly name: string
  /** The call's input as JSON text (clipped). */
  readonly input: string
  readonly state: string
  readonly output?: string
  readonly exit?: number
  readonly error?: string
  readonly path?: string
  readonly diff?: string
}

export interface StepView {
  readonly n: number
  /** Line of the step in its file (0 when it comes from a store). */
  readonly line: number
  readonly users: ReadonlyArray<string>
  readonly reasoning?: string
  readonly text?: string
  readonly calls: ReadonlyArray<CallView>
  readonly finish?: string
  readonly error?: string
  readonly tokens?: number
}

export interface RunPage {
  readonly title: string
  readonly file: string
  readonly format: string
  readonly steps: ReadonlyArray<StepView>
  readonly incidents: ReadonlyArray<AuditIncident>
  readonly exit: { readonly reason: string; readonly step: number } | null
  readonly notes: ReadonlyArray<string>
}

/** Characters kept of one text on the page: a run of 10,000 steps must stay a page a browser opens. */
export const CLIP_TEXT = 4000
export const CLIP_OUTPUT = 2000
export const CLIP_INPUT = 1000

/** The beginning of `s`, and how much was left out. */
export const clip = (s: string, max: number): string => (s.length <= max ? s : `${s.slice(0, max)}\n… (${s.length - max} more characters not shown)`)

type Redact = (text: string) => string

/**
 * `s` redacted, then clipped: clipped first, a key cut at the boundary would no longer match its
 * pattern and most of it would be shown.
 */
const shown = (s: string, max: number, redact: Redact): string => clip(redact(s), max)

const inputText = (input: unknown): string => {
  if (typeof input === "string") return input
  try {
    return JSON.stringify(input) ?? ""
  } catch {
    return String(input)
  }
}

const callView = (p: ToolPart, redact: Redact): CallView => {
  const out: { -readonly [K in keyof CallView]: CallView[K] } = { name: redact(p.name), input: shown(inputText(p.input), CLIP_INPUT, redact), state: p.state }
  if (p.output !== undefined && p.output !== "") out.output = shown(p.output, CLIP_OUTPUT, redact)
  if (p.exitCode !== undefined) out.exit = p.exitCode
  if (p.error !== undefined) out.error = shown(p.error, CLIP_OUTPUT, redact)
  if (p.path !== undefined) out.path = redact(p.path)
  if (p.diff !== undefined && p.diff !== "") out.diff = shown(p.diff, CLIP_OUTPUT, redact)
  return out
}

/** One step as the page shows it: the users before it, then its reply. */
export const stepView = (n: number, line: number, users: ReadonlyArray<UserMessage>, reply: AssistantMessage, redact: Redact): StepView => {
  const out: { -readonly [K in keyof StepView]: StepView[K] } = { n, line, users: users.map((u) => shown(u.text, CLIP_TEXT, redact)), calls: [] }
  const reasoning = reply.parts.flatMap((p) => (p.type === "reasoning" ? [p.text] : [])).join("\n")
  const text = reply.parts.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("\n")
  if (reasoning !== "") out.reasoning = shown(reasoning, CLIP_TEXT, redact)
  if (text !== "") out.text = shown(text, CLIP_TEXT, redact)
  out.calls = reply.parts.flatMap((p) => (p.type === "tool" ? [callView(p, redact)] : []))
  if (reply.finish !== undefined) out.finish = reply.finish
  if (reply.error !== undefined) out.error = shown(reply.error.message, CLIP_OUTPUT, redact)
  const tokens = reply.usage?.totalTokens ?? ((reply.usage?.inputTokens ?? 0) + (reply.usage?.outputTokens ?? 0) || undefined)
  if (tokens !== undefined) out.tokens = tokens
  return out
}
