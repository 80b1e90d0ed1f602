/**
 * A Gemini CLI checkpoint: the API history, `{role, parts}` turns. A `model` turn is a step
 * (text, `thought` parts as reasoning, `functionCall`s); the `functionResponse`s of the next
 * `user` turn are its results, matched by id, else by name in order (older versions wrote no ids).
 */
import { isJsonObject, type JsonObject } from "../fields.js"
import { newDraft, joinText, type TraceBuilder } from "./builder.js"
import type { LineLocator } from "./document.js"
import { arr, exitCodeIn, obj, str } from "./json-line.js"

export interface Call {
  readonly id: string
  readonly name: string
  answered: boolean
}

/** A `model` turn as a step: text, `thought` parts as reasoning, `functionCall`s (added to `open`); the draft, for what its log adds. */
export const modelTurnDraft = (parts: ReadonlyArray<unknown>, line: number, open: Array<Call>) => {
  const d = newDraft(line)
  for (const p of parts) {
    if (!isJsonObject(p)) continue
    const fc = obj(p, "functionCall")
    if (fc !== undefined) {
      const name = str(fc, "name") ?? "?"
      const id = str(fc, "id") ?? `g${line}-${d.toolCalls.length}`
      d.toolCalls.push({ id, name, input: obj(fc, "args") ?? {} })
      open.push({ id, name, answered: false })
    } else if (typeof p["text"] === "string") {
      if (p["thought"] === true) d.reasoning = joinText(d.reasoning, p["text"])
      else d.text = joinText(d.text, p["text"])
    }
  }
  d.finish = d.toolCalls.length > 0 ? "tool-calls" : "stop"
  return d
}

const modelTurn = (b: TraceBuilder, parts: ReadonlyArray<unknown>, line: number, open: Array<Call>): void => b.assistant(modelTurnDraft(parts, line, open))

/** A `user` turn: its `functionResponse`s are the results of the calls in `open`, its text a user line. */
export const userTurn = (b: TraceBuilder, parts: ReadonlyArray<unknown>, line: number, open: Array<Call>): void => {
  const texts: Array<string> = []
  for (const p of parts) {
    if (!isJsonObject(p)) continue
    const fr = obj(p, "functionResponse")
    if (fr === undefined) {
      if (typeof p["text"] === "string") texts.push(p["text"])
      continue
    }
    const name = str(fr, "name") ?? "?"
    const call = open.find((c) => !c.answered && c.id === str(fr, "id")) ?? open.find((c) => !c.answered && c.name === name)
    if (call === undefined) {
      b.note(line, `function response "${name}" answers no call of the turn before; skipped`)
      continue
    }
    call.answered = true
    const response = obj(fr, "response")
    const output = str(response, "output") ?? str(response, "error") ?? JSON.stringify(response ?? {})
    const exitCode = name === "run_shell_command" ? exitCodeIn(output) : undefined
    b.result({ line, id: call.id, name, output, error: str(response, "error") !== undefined, ...(exitCode !== undefined ? { exitCode } : {}) })
  }
  b.user(line, texts.join("\n"))
}

export const geminiHistory = (turns: ReadonlyArray<unknown>, b: TraceBuilder, at: LineLocator): void => {
  let open: Array<Call> = []
  for (const t of turns) {
    const line = at.find(`"role"`)
    if (!isJsonObject(t)) continue
    const role = str(t as JsonObject, "role")
    const parts = arr(t as JsonObject, "parts")
    if (role === "model") {
      open = []
      modelTurn(b, parts, line, open)
    } else if (role === "user") userTurn(b, parts, line, open)
    else b.note(line, `turn with role "${role ?? "?"}" skipped`)
  }
}
