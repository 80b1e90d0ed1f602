/**
 * Agents that offer the model no tools and run an action written in its reply (mini-SWE-agent's
 * bash block, SWE-agent's fenced commands or XML function, Cline's tool tags: core's
 * `harnessActionOf`), sending what it printed back as the next user message, wrapped their way
 * (core's `isHarnessResult`). Read as written, every step of such an agent would be a new user
 * turn, and a turn of one step never shows a loop. Folded here into the call and its result, as a
 * native tool call and its result are: the judge reads the steps of the run as one turn. A person's
 * message still starts a new one: one after a reply with no action (a final answer, the proxy's
 * stop), and one that answers a reply suggesting a command (a chat, Aider), which is the person's
 * words, not a harness's report.
 */
import { harnessActionOf, harnessExitCode, isHarnessResult } from "@loopguard/core/toolcall"
import { textOf, type AssistantMessage, type Message, type ToolPart } from "@loopguard/core/model"

/** The call an action reply made, answered by `result` (the user message after it). */
const foldedStep = (reply: AssistantMessage, result: Message & { role: "user" }): AssistantMessage | null => {
  if (reply.parts.some((p) => p.type === "tool") || !isHarnessResult(result.text)) return null
  const action = harnessActionOf(textOf(reply))
  if (action === null) return null
  const exitCode = harnessExitCode(result.text)
  const call: ToolPart = {
    type: "tool",
    callId: `text-action-${reply.id}`,
    name: action.name,
    input: action.input,
    state: "completed",
    output: result.text,
    ...(exitCode !== undefined ? { exitCode } : {})
  }
  return { ...reply, parts: [...reply.parts, call], finish: "tool-calls" }
}

/** The history with each action reply and the user message that answers it folded into one step with its call. */
export const withTextActions = (messages: ReadonlyArray<Message>): ReadonlyArray<Message> => {
  const out: Array<Message> = []
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!
    const next = messages[i + 1]
    const folded = m.role === "assistant" && next?.role === "user" && next.synthetic === undefined ? foldedStep(m, next) : null
    if (folded === null) {
      out.push(m)
      continue
    }
    out.push(folded)
    i += 1
  }
  return out
}
