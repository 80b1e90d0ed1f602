import { describe, expect, test } from "bun:test"
import { reply } from "../../loops/fixtures.js"
import { DEFAULT_JUDGE_CONFIG } from "../judge-config.js"
import type { StepVerdict } from "./step-detector.js"
import { factsOf } from "./test-facts.js"
import { TextLoopStepDetector } from "./text-loop.js"

const same = (i: number) => reply({ id: `a${i}`, text: "Let me check the config file once more." })
const run = (d: TextLoopStepDetector, n: number, cropped = (_: number) => false): Array<StepVerdict> =>
  Array.from({ length: n }, (_, i) => d.push(factsOf([], i + 1, { reply: same(i), cropped: cropped(i) })))

describe("TextLoopStepDetector", () => {
  test("the same opening repeated: mild, then strong reminder, then the run ends", () => {
    const verdicts = run(new TextLoopStepDetector(DEFAULT_JUDGE_CONFIG.textLoop), 12)
    const levels = verdicts.flatMap((v) => v.incidents ?? []).map((i) => i.action)
    expect(levels.slice(0, 3)).toEqual(["mild", "strong", "terminate"])
    expect(verdicts.flatMap((v) => v.reminders ?? []).map((r) => r.kind)).toEqual(["text-loop-mild", "text-loop-strong"])
    expect(verdicts.find((v) => v.exit !== undefined)?.exit).toEqual({ reason: "text_loop", error: { tag: "TextLoopError", message: "Text loop detected" } })
  })

  test("a reply answering a cropped request is skipped", () => {
    const plain = run(new TextLoopStepDetector(DEFAULT_JUDGE_CONFIG.textLoop), 3)
    const cropped = run(new TextLoopStepDetector(DEFAULT_JUDGE_CONFIG.textLoop), 3, (i) => i === 2)
    expect(plain[2]).not.toEqual({})
    expect(cropped[2]).toEqual({})
  })

  test("a poll narrated in the same words is skipped; the same words over another command are a loop", () => {
    const words = "CI is still running. I'll wait another minute and check again."
    const step = (i: number, command: string) => reply({ id: `p${i}`, text: words, tools: [["bash", { command }]] })
    const verdicts = (command: (i: number) => string) => {
      const d = new TextLoopStepDetector(DEFAULT_JUDGE_CONFIG.textLoop)
      return Array.from({ length: 9 }, (_, i) => d.push(factsOf([], i + 1, { reply: step(i, command(i)) }))).flatMap((v) => v.incidents ?? []).map((x) => x.action)
    }
    expect(verdicts(() => "sleep 60 && gh run view 42")).toEqual([])
    expect(verdicts(() => "python gen.py --all")).toEqual(["mild", "strong", "terminate"])
  })
})
