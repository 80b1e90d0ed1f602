/**
 * A reply cut in the stream for repeating itself goes straight back to the top with its own
 * reminder: it is not one more step of the cross-step text loop, and when the in-stream recovery
 * gives up its exit is filed under its own detector. Over HTTP to the scripted server.
 */
import { repeatLoop } from "@loopguard/ai-sdk/testing"
import { RunLoop } from "@loopguard/effect"
import { expect } from "bun:test"
import { Effect } from "effect"
import { it } from "./effect-test.js"
import { harness } from "./harness.js"

it.live("identical replies each cut for repetition: no text-loop incident; the exit is text-repeat / exit:text_repeat", () => Effect.gen(function* () {
  const looping = () => repeatLoop("I will check the config file again to be sure. ", 60)
  const h = yield* harness([looping(), looping(), looping(), looping(), looping()])
  const r = yield* h.provide(Effect.gen(function* () { return yield* (yield* RunLoop).run({ sessionId: "s", prompt: "check the config" }) }))
  expect(r.report.reason).toBe("text_repeat")
  const filed = r.report.incidents.map((i) => `${i.detector}/${i.action}`)
  expect(filed.filter((f) => f.startsWith("text-loop/"))).toEqual([])
  expect(filed.at(-1)).toBe("text-repeat/exit:text_repeat")
  expect(filed.filter((f) => f.startsWith("continue/"))).toEqual([])
}), 30_000)
