import { describe, expect, test } from "bun:test"
import type { AssistantMessage, Message } from "@loopguard/core/model"
import { exportTrace } from "./trace-io.js"

const lines = (messages: ReadonlyArray<Message>) => exportTrace("s", messages).trim().split("\n").map((l) => JSON.parse(l))

describe("exportTrace", () => {
  const stop: AssistantMessage = { role: "assistant", id: "m18", parentId: "m1", step: 8, finish: "stop", parts: [{ type: "text", text: "[loopguard stopped this turn] the agent is stuck in a loop.", synthetic: true }] }

  test("a reply that is loopguard's own answer and nothing else is written with its text: the turn the agent got, not an empty reply", () => {
    const [, , line] = lines([{ role: "user", id: "u", text: "go" }, stop])
    expect(line).toMatchObject({ type: "assistant", text: stop.parts[0]!.type === "text" ? stop.parts[0]!.text : "", finish: "stop", stored: stop })
  })

  test("beside the model's own words, or excluded, loopguard's notice stays out of the text", () => {
    const cut: AssistantMessage = { ...stop, parts: [{ type: "text", text: "Model words." }, { type: "text", text: "[cut]", synthetic: true }] }
    expect(lines([cut])[1].text).toBe("Model words.")
    expect(lines([{ ...stop, excluded: "replayed" }])[1].text).toBeUndefined()
  })
})
