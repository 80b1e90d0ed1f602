/** The text loop (a reply repeating its own opening) as a step detector. */
import { recordOf, replyChangedFiles, TextLoopDetector, TEXT_LOOP_MILD_PROMPT, TEXT_LOOP_STRONG_PROMPT } from "../../loops/index.js"
import type { JudgeConfig } from "../judge-config.js"
import type { StepDetector, StepFacts, StepVerdict } from "./step-detector.js"

const TEXT_LOOP_PREFIXES = ["let me ", "i'll ", "i will ", "let's "]

export class TextLoopStepDetector implements StepDetector {
  private state = TextLoopDetector.init()

  constructor(private readonly config: JudgeConfig["textLoop"]) {}

  push({ reply, step, cropped, ctx }: StepFacts): StepVerdict {
    // A reply cut in the stream for repeating itself has its own recovery; it is no step of a text loop.
    if (ctx.cutForRepetition === true) return {}
    // Waiting on a job in the same words ("CI is still running, I'll check again in a minute") is
    // narration, not a loop: the ladder judges a poll, with its patience (poll-wait.ts).
    if (reply.parts.some((p) => p.type === "tool") && recordOf(reply).poll) return {}
    const loop = TextLoopDetector.consume(this.state, reply, { cropped, changed: replyChangedFiles(reply) }, { ...this.config, prefixes: TEXT_LOOP_PREFIXES })
    this.state = loop.state
    if (!loop.trigger) return {}
    const level = loop.trigger.level
    const incidents = [{ step, detector: "text-loop", action: level, detail: { count: loop.trigger.count, key: loop.trigger.key.slice(0, 120) } }]
    if (level === "terminate") return { incidents, exit: { reason: "text_loop", error: { tag: "TextLoopError", message: "Text loop detected" } } }
    const reminder = level === "mild" ? { kind: "text-loop-mild" as const, text: TEXT_LOOP_MILD_PROMPT } : { kind: "text-loop-strong" as const, text: TEXT_LOOP_STRONG_PROMPT }
    return { incidents, reminders: [reminder] }
  }
}
