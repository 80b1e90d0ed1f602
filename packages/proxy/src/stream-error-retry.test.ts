/**
 * The error event the proxy ends a broken stream with (a stall, a missing end event) must read as
 * a stream failure to a client's retry policy, loopguard's own first: `loopguard run` in front of
 * the proxy replays the step, as it does talking to the upstream directly.
 */
import { classify, normalizeError } from "@loopguard/core/retry"
import { describe, expect, test } from "bun:test"
import { chatProtocol } from "./protocols/chat.js"
import { responsesProtocol } from "./protocols/responses.js"
import { eventsOf } from "./sse.js"

/** The error object a client's SDK hands on from the event: Chat's `error` field, the Responses error event itself. */
const errorOf = (text: string): unknown => {
  const data = JSON.parse(eventsOf(text)[0]!.data)
  return data.error ?? data
}

describe("the proxy's stream error event", () => {
  for (const [name, protocol] of [["chat", chatProtocol], ["responses", responsesProtocol]] as const) {
    test(`${name}: a stream failure, replayed by loopguard's retry policy`, () => {
      const error = normalizeError(errorOf(protocol.streamError("the upstream went silent for 3000 ms")))
      expect(error.message).toContain("went silent")
      expect(classify({ ...error, phase: "stream" }).kind).toBe("stream")
    })
  }
})
