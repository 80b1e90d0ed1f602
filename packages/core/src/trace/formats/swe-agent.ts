/**
 * Trajectories of the agents that run an action written in the model's reply and send its output
 * back as the next user message, in the forms they save them:
 * - mini-SWE-agent (`*.traj.json`): `{info, messages, trajectory_format}`, the conversation as the
 *   model saw it, `{role, content}` each (content a string or a list of `{type: "text", text}`);
 *   replies carry the action as text (core's `harnessActionOf`), the user message after one is its
 *   output (`<returncode>N</returncode>` at its head). Messages in OpenAI's own tool form
 *   (`tool_calls`, `role: "tool"`) are read as calls and results.
 * - SWE-agent (`*.traj`): `{trajectory: [{response, thought, action, observation}], history, info}`,
 *   one entry per step: the reply, the action it ran and what that printed.
 */
import { harnessActionOf, harnessExitCode, markupActionOf } from "../../toolcall/harness-actions.js"
import { isJsonObject, type JsonObject } from "../fields.js"
import { newDraft, type TraceBuilder } from "./builder.js"
import { documentReader, type LineLocator } from "./document.js"
import { arr, obj, str, textOf } from "./json-line.js"
import type { TraceReader } from "./reader.js"

/** The call a reply waits on the result of: the action written in it, or its native calls. */
type Pending = { readonly kind: "action"; readonly id: string; readonly name: string } | { readonly kind: "native"; readonly names: ReadonlyMap<string, string> } | null

/** A reply's native calls (`tool_calls`, OpenAI's form), as trace calls; their names by id. */
const nativeCalls = (m: JsonObject, line: number): { readonly calls: Array<{ id: string; name: string; input: unknown }>; readonly names: Map<string, string> } => {
  const calls = arr(m, "tool_calls").flatMap((c, i) => {
    if (!isJsonObject(c)) return []
    const fn = obj(c, "function")
    const args = str(fn, "arguments") ?? "{}"
    let input: unknown = args
    try {
      input = JSON.parse(args)
    } catch {
      // Arguments that are not JSON stay as written.
    }
    return [{ id: str(c, "id") ?? `m${line}-${i}`, name: str(fn, "name") ?? "?", input }]
  })
  return { calls, names: new Map(calls.map((c) => [c.id, c.name])) }
}

/** One assistant message as a step; returns what its result will answer. */
const reply = (b: TraceBuilder, m: JsonObject, line: number): Pending => {
  const d = newDraft(line)
  d.text = textOf(m["content"])
  const native = nativeCalls(m, line)
  d.toolCalls.push(...native.calls)
  const action = native.calls.length === 0 ? harnessActionOf(d.text) : null
  const id = `a${line}`
  if (action !== null) d.toolCalls.push({ id, name: action.name, input: action.input })
  d.finish = d.toolCalls.length > 0 ? "tool-calls" : "stop"
  b.assistant(d)
  if (native.calls.length > 0) return { kind: "native", names: native.names }
  return action === null ? null : { kind: "action", id, name: action.name }
}

/** The output of an action, from the user message after its reply. */
const actionResult = (b: TraceBuilder, line: number, pending: { readonly id: string; readonly name: string }, output: string): void => {
  const exitCode = harnessExitCode(output)
  b.result({ line, id: pending.id, name: pending.name, output, error: exitCode !== undefined && exitCode !== 0, ...(exitCode !== undefined ? { exitCode } : {}) })
}

/** mini-SWE-agent's conversation (or any `{role, content}` list in OpenAI's form). */
const conversation = (messages: ReadonlyArray<unknown>, b: TraceBuilder, at: LineLocator): void => {
  let pending: Pending = null
  for (const m of messages) {
    if (!isJsonObject(m)) continue
    const line = at.find(`"role"`)
    const role = str(m, "role")
    const text = textOf(m["content"])
    if (role === "assistant") pending = reply(b, m, line)
    else if (role === "tool" && pending?.kind === "native") {
      const id = str(m, "tool_call_id") ?? "?"
      b.result({ line, id, name: pending.names.get(id) ?? "?", output: text, error: false })
    } else if (role === "user" && pending?.kind === "action") {
      actionResult(b, line, pending, text)
      pending = null
    } else if (role === "user") {
      b.user(line, text)
      pending = null
    } else if (role !== "system" && role !== "exit") b.note(line, `message with role "${role ?? "?"}" skipped`)
  }
}

// SWE-agent's own commands (its tools); any other action is a shell command.
const SWE_AGENT_COMMANDS = new Set(["open", "goto", "scroll_up", "scroll_down", "create", "edit", "insert", "find_file", "search_dir", "search_file", "submit", "str_replace_editor", "filemap"])

/** The call an action string is: an XML function written in the reply names it whole, else its first word when it is one of SWE-agent's commands, else bash. */
const sweAgentCall = (response: string, command: string): { readonly name: string; readonly input: unknown } => {
  const written = markupActionOf(response)
  if (written !== null && written !== undefined) return written
  const first = command.split(/\s+/)[0] ?? ""
  return { name: SWE_AGENT_COMMANDS.has(first) ? first : "bash", input: { command } }
}

/** SWE-agent's steps: each a reply, the action it ran and its observation. */
const steps = (trajectory: ReadonlyArray<unknown>, task: string, b: TraceBuilder, at: LineLocator): void => {
  b.user(1, task)
  trajectory.forEach((s, i) => {
    if (!isJsonObject(s)) return
    const line = at.find(`"observation"`)
    const d = newDraft(line)
    d.text = str(s, "response") ?? str(s, "thought") ?? ""
    const command = (str(s, "action") ?? "").trim()
    const id = `s${i}`
    const call = sweAgentCall(d.text, command)
    if (command !== "") d.toolCalls.push({ id, name: call.name, input: call.input })
    d.finish = d.toolCalls.length > 0 ? "tool-calls" : "stop"
    b.assistant(d)
    if (command !== "") b.result({ line, id, name: call.name, output: str(s, "observation") ?? "", error: false })
  })
}

/** SWE-agent's task: the first user message of its history (after the system prompt). */
const taskOf = (doc: JsonObject): string => {
  const first = arr(doc, "history").find((h) => isJsonObject(h) && str(h, "role") === "user")
  return isJsonObject(first) ? textOf(first["content"]) : ""
}

const convert = (doc: unknown, b: TraceBuilder, at: LineLocator): void => {
  if (!isJsonObject(doc)) return b.note(1, "not a SWE-agent or mini-SWE-agent trajectory (expected a JSON object); nothing read")
  const info = obj(doc, "info")
  const mini = str(info, "mini_version")
  b.session(1, { agent: mini !== undefined ? `mini-SWE-agent ${mini}` : "SWE-agent", model: str(obj(obj(info, "config"), "model"), "model_name") })
  if (Array.isArray(doc["messages"])) return conversation(doc["messages"], b, at)
  if (Array.isArray(doc["trajectory"])) return steps(doc["trajectory"], taskOf(doc), b, at)
  b.note(1, "not a SWE-agent or mini-SWE-agent trajectory (expected `messages` or `trajectory`); nothing read")
}

export const sweAgentReader = (file: string): TraceReader => documentReader(file, convert)
