import { describe, expect, test } from "bun:test"
import { healthyTaskScript, HEALTHY_ANSWER, HEALTHY_COMMAND, repeatedShellScript, REPEATED_COMMAND, shellCall, shellCallAsText, shellToolOf, textCallTaskScript, toolResultsIn } from "./agent-scripts.js"

const schema = (properties: Record<string, unknown>, required: Array<string>) => ({ type: "object", properties, required })

// The same shell tool as each protocol declares it.
const chatBody = (messages: Array<unknown> = []) => ({
  messages,
  tools: [
    { type: "function", function: { name: "read", parameters: schema({ path: { type: "string" } }, ["path"]) } },
    { type: "function", function: { name: "bash", parameters: schema({ command: { type: "string" }, description: { type: "string" } }, ["command", "description"]) } }
  ]
})
const responsesBody = (input: Array<unknown> = []) => ({
  input,
  tools: [{ type: "function", name: "exec_command", parameters: schema({ cmd: { type: "string" }, workdir: { type: "string" } }, ["cmd"]) }]
})
const messagesBody = (messages: Array<unknown> = []) => ({
  messages,
  tools: [{ name: "Bash", input_schema: schema({ command: { type: "string" }, timeout: { type: "number" } }, ["command"]) }]
})

const callOf = (response: ReturnType<typeof shellCall>) => {
  const chunk = response.chunks.find((c) => "toolCall" in c)
  return chunk !== undefined && "toolCall" in chunk ? { name: chunk.toolCall.name, args: JSON.parse(chunk.toolCall.arguments), id: chunk.toolCall.id } : undefined
}

describe("agent scripts", () => {
  test("the shell tool is found in each protocol's tool list, and the call fills the required strings", () => {
    expect(callOf(shellCall(chatBody(), "ls", 0))).toEqual({ name: "bash", args: { command: "ls", description: "scripted step" }, id: "call_step_0" })
    expect(callOf(shellCall(responsesBody(), "ls", 2))).toEqual({ name: "exec_command", args: { cmd: "ls" }, id: "call_step_2" })
    expect(callOf(shellCall(messagesBody(), "ls", 1))).toEqual({ name: "Bash", args: { command: "ls" }, id: "call_step_1" })
  })

  test("the call written as text names the same tool with the same arguments, and no structured call comes with it", () => {
    const reply = shellCallAsText(messagesBody(), "ls")
    expect(callOf(reply)).toBeUndefined()
    const text = reply.chunks.map((c) => ("text" in c && typeof c.text === "string" ? c.text : "")).join("")
    expect(JSON.parse(/<tool_call>(.*)<\/tool_call>/s.exec(text)![1]!)).toEqual({ name: "Bash", arguments: { command: "ls" } })
    // The task's second step (after the call's result) is the answer.
    const second = textCallTaskScript(messagesBody([{ role: "user", content: [{ type: "tool_result", tool_use_id: "x", content: "" }] }]))
    expect(second.chunks.map((c) => ("text" in c ? c.text : "")).join("")).toBe(HEALTHY_ANSWER)
  })

  test("a shell taking argv gets bash -lc and the command line", () => {
    const body = { tools: [{ type: "function", name: "shell", parameters: schema({ command: { type: "array" } }, ["command"]) }] }
    expect(callOf(shellCall(body, "ls", 0))?.args).toEqual({ command: ["bash", "-lc", "ls"] })
  })

  test("a request without a shell tool gets text, never a made-up call", () => {
    expect(shellToolOf({ tools: [{ type: "function", function: { name: "read", parameters: schema({ path: { type: "string" } }, []) } }] })).toBeUndefined()
    expect(callOf(shellCall({ tools: [] }, "ls", 0))).toBeUndefined()
  })

  test("tool results are counted in each protocol's history", () => {
    expect(toolResultsIn(chatBody([{ role: "user", content: "go" }, { role: "assistant", tool_calls: [] }, { role: "tool", content: "" }]))).toBe(1)
    expect(toolResultsIn(responsesBody([{ type: "function_call" }, { type: "function_call_output", output: "" }, { type: "function_call_output", output: "" }]))).toBe(2)
    expect(toolResultsIn(messagesBody([{ role: "user", content: [{ type: "tool_result", content: "" }] }, { role: "user", content: "next" }]))).toBe(1)
    expect(toolResultsIn({})).toBe(0)
  })

  test("the repeated script asks for the same call at every step; the healthy one writes, then answers", () => {
    const first = callOf(repeatedShellScript(chatBody()))
    const later = callOf(repeatedShellScript(chatBody([{ role: "tool", content: "" }])))
    expect(first?.args.command).toBe(REPEATED_COMMAND)
    expect(later?.args).toEqual(first?.args)

    expect(callOf(healthyTaskScript(chatBody()))?.args.command).toBe(HEALTHY_COMMAND)
    const answer = healthyTaskScript(chatBody([{ role: "tool", content: "" }]))
    expect(answer.chunks.map((c) => ("text" in c ? c.text : "")).join("")).toBe(HEALTHY_ANSWER)
  })

  test("a side request without tools (a title) gets a short text", () => {
    const reply = repeatedShellScript({ messages: [{ role: "user", content: "title?" }] })
    expect(reply.chunks.every((c) => "text" in c)).toBe(true)
  })
})
