/**
 * What every backend (AI SDK, Effect AI) does the same way when it maps loopguard's model to a
 * provider's and back, so a run reads the same whichever backend carried it.
 */
import { MAX_ARGUMENT_DEPTH, parseToolArguments, TOO_DEEP, valueNestsDeeperThan } from "../toolcall/parse-arguments.js"
import type { AssistantPart, ToolPart } from "./message.js"
import type { StreamPart } from "./stream.js"

/** A call loopguard ran and answered: sent back with its result. Pending calls are left out (providers reject unanswered calls). */
export const isAnsweredClientCall = (p: AssistantPart): p is ToolPart =>
  p.type === "tool" && (p.state === "completed" || p.state === "error") && p.providerExecuted !== true

/**
 * The text the model sees as a tool's result: errors say so (with any output the tool produced
 * before it failed, e.g. a command cut off at its timeout), a non-zero exit code is appended.
 */
export const toolResultText = (p: ToolPart): string => {
  const out = p.output ?? ""
  if (p.state === "error") return p.error === undefined ? `Error: ${out || "tool failed"}` : out === "" ? `Error: ${p.error}` : `Error: ${p.error}
${out}`
  return p.exitCode !== undefined && p.exitCode !== 0 ? `${out}\n[exit code ${p.exitCode}]` : out
}

/**
 * A tool call whose arguments arrived as unparsed text (the provider could not parse them) still
 * becomes a call: benign slips are repaired and flagged; cut-off or unreadable arguments keep the
 * raw text as input and carry `argumentsError`, so the call is refused instead of guessed at.
 */
export const toolCallPart = (id: string, name: string, rawInput: unknown): Extract<StreamPart, { type: "tool-call" }> => {
  if (typeof rawInput !== "string") {
    // Already parsed by the provider: arguments nested past any tool's need are refused here,
    // before a walk over them (redaction, fingerprints) recurses that deep.
    if (valueNestsDeeperThan(rawInput, MAX_ARGUMENT_DEPTH)) return { type: "tool-call", id, name, input: {}, argumentsError: TOO_DEEP }
    return { type: "tool-call", id, name, input: rawInput ?? {} }
  }
  const parsed = parseToolArguments(rawInput)
  if (!parsed.ok) return { type: "tool-call", id, name, input: rawInput, inputText: rawInput, argumentsError: parsed.value.error }
  return { type: "tool-call", id, name, input: parsed.value, inputText: rawInput, ...(parsed.repaired ? { argumentsRepaired: true } : {}) }
}
