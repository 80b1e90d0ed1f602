/**
 * Running the RunLoop for the loops e2e tests: several user turns in ONE Effect (the memory store
 * lives as long as the Effect, so a second turn sees the first one's history and crop markers),
 * and small readers of the results.
 */
import { textStream, type ScriptedResponse } from "@loopguard/ai-sdk/testing"
import type { Message } from "@loopguard/core/model"
import { Permission, RunLoop, SessionStore, type PermissionRequest, type RunResult } from "@loopguard/effect"
import { Effect, Layer } from "effect"

/** One `RunLoop.run` per prompt, in order, on session "s"; then the stored session. */
export const turns = (...prompts: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const loop = yield* RunLoop
    const results: Array<RunResult> = []
    for (const prompt of prompts) results.push(yield* loop.run({ sessionId: "s", prompt }))
    const stored = yield* (yield* SessionStore).messages("s")
    return { results, stored }
  })

export const answer = (text: string): ScriptedResponse => textStream(text)

export const range = (n: number): ReadonlyArray<number> => Array.from({ length: n }, (_, i) => i)

/** The actions one detector took during a run, in order. */
export const actions = (r: RunResult, detector: string): ReadonlyArray<string> =>
  r.incidents.filter((i) => i.detector === detector).map((i) => i.action)

/** Call ids of the tool parts of a stored message. */
export const storedToolIds = (m: Message): ReadonlyArray<string> =>
  m.role === "assistant" ? m.parts.flatMap((p) => (p.type === "tool" ? [p.callId] : [])) : []

/** A Permission layer that answers `answerWith` and remembers every question. */
export const recordingPermission = (answerWith: "allow" | "deny") => {
  const asked: Array<PermissionRequest> = []
  const layer = Layer.succeed(Permission, Permission.make((request) => Effect.sync(() => (asked.push(request), answerWith))))
  return { asked, layer }
}
