/**
 * Message builders for the loops tests (and for other test suites that need small histories).
 * Not part of the public API.
 */
import type { AssistantMessage, AssistantPart, CropMarker, ReminderKind, UserMessage } from "../model/message.js"
import type { StepRecord } from "./step-record.js"
import { saysNo } from "./masks.js"

export interface ReplySpec {
  readonly id: string
  readonly text?: string
  readonly reasoning?: string
  readonly tools?: ReadonlyArray<readonly [name: string, input: unknown]>
  readonly finish?: AssistantMessage["finish"] | null
  readonly excluded?: AssistantMessage["excluded"]
  readonly synthetic?: string
}

let stepCounter = 0

export const reply = (spec: ReplySpec): AssistantMessage => {
  const parts: Array<AssistantPart> = []
  if (spec.reasoning !== undefined) parts.push({ type: "reasoning", text: spec.reasoning })
  if (spec.text !== undefined) parts.push({ type: "text", text: spec.text })
  if (spec.synthetic !== undefined) parts.push({ type: "text", text: spec.synthetic, synthetic: true })
  ;(spec.tools ?? []).forEach(([name, input], i) =>
    parts.push({ type: "tool", callId: `${spec.id}-c${i}`, name, input, state: "completed", output: "ok" })
  )
  const base = { role: "assistant" as const, id: spec.id, parentId: "u", parts, step: stepCounter++ }
  const finish = spec.finish === null ? undefined : (spec.finish ?? ((spec.tools ?? []).length > 0 ? "tool-calls" : "stop"))
  return {
    ...base,
    ...(finish === undefined ? {} : { finish }),
    ...(spec.excluded === undefined ? {} : { excluded: spec.excluded })
  }
}

export const user = (id: string, text = "do it", extra: { synthetic?: ReminderKind; crops?: ReadonlyArray<CropMarker> } = {}): UserMessage => ({
  role: "user",
  id,
  text,
  ...(extra.synthetic === undefined ? {} : { synthetic: extra.synthetic }),
  ...(extra.crops === undefined ? {} : { crops: extra.crops })
})

/** A reply that only calls one tool. */
export const call = (id: string, name: string, input: unknown, extra: Partial<ReplySpec> = {}): AssistantMessage =>
  reply({ ...extra, id, tools: [[name, input]] })

/** A shell step record for the detector tests: the given fields over a plain, unchanged, successful step. */
export const stepRecord = (fields: Partial<StepRecord> & Pick<StepRecord, "action" | "observation">): StepRecord => ({
  step: 0,
  tool: "bash",
  changed: false,
  editing: false,
  failed: false,
  role: "shell",
  skeleton: "",
  coreAction: fields.action,
  argObservation: fields.observation,
  namedObservation: fields.observation,
  poll: false,
  waitSeconds: 0,
  silent: false,
  rawObservation: fields.observation,
  verified: false,
  verification: false,
  tally: null,
  lookup: false,
  look: false,
  saysNo: fields.observation.trim() === "" || saysNo(fields.observation),
  ...fields
})
