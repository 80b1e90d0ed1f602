import { describe, expect, test } from "bun:test"
import type { AssistantPart } from "../model/message.js"
import { nextShrink, shrinkToolOutputs, SHRINK_LADDER } from "./shrink-outputs.js"

const reply = (output: string) => ({ role: "assistant" as const, parts: [{ type: "tool", callId: "c", name: "bash", input: {}, state: "completed", output } satisfies AssistantPart] })
const outputOf = (m: object) => ((m as { parts: ReadonlyArray<AssistantPart> }).parts[0] as { output: string }).output

describe("shrinking old tool outputs", () => {
  const history = [{ role: "user" as const, text: "go" }, reply("a".repeat(10_000)), reply("b".repeat(10_000)), reply("c".repeat(10_000))]

  test("oldest first: the latest reply is kept whole on the first rungs, head and tail kept", () => {
    const r = shrinkToolOutputs(history, { maxChars: 2_000, keepRecent: 1 })
    expect(r.shrunk).toBe(2)
    expect(outputOf(r.messages[1]!)).toStartWith("a".repeat(1_000))
    expect(outputOf(r.messages[1]!)).toEndWith("a".repeat(1_000))
    expect(outputOf(r.messages[1]!)).toContain("8000 characters of this earlier tool output left out to fit the context window")
    expect(outputOf(r.messages[3]!)).toBe("c".repeat(10_000))
  })

  test("keepRecent 0 shortens every reply; short outputs are left as they are", () => {
    expect(shrinkToolOutputs(history, { maxChars: 500, keepRecent: 0 }).shrunk).toBe(3)
    expect(shrinkToolOutputs([reply("ok")], { maxChars: 200, keepRecent: 0 }).shrunk).toBe(0)
  })

  test("the ladder goes rung by rung and ends", () => {
    const rungs = [nextShrink(null)]
    while (rungs.at(-1) !== null) rungs.push(nextShrink(rungs.at(-1)!))
    expect(rungs.slice(0, -1)).toEqual([...SHRINK_LADDER])
    expect(rungs.at(-1)).toBeNull()
  })
})
