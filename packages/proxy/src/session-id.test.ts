/** The session an agent names in `x-loopguard-session`: a good id is used, a bad one refused, none derived. */
import { expect, test } from "bun:test"
import { textStream } from "@loopguard/ai-sdk/testing"
import { post, records, startRig } from "./proxy.fixture.js"
import { sessionHeaderRefusal } from "./session-id.js"

const HEADER = "x-loopguard-session"

test("a named id that is no session id is refused with the header and the rule; a good one or none is not", () => {
  for (const bad of ["a/b", "../../x", "x".repeat(129), "a b"]) {
    const why = sessionHeaderRefusal({ [HEADER]: bad }, HEADER)
    expect(why).toContain(HEADER)
    expect(why).toContain("letters, digits")
  }
  expect(sessionHeaderRefusal({ [HEADER]: "x".repeat(10_000) }, HEADER)!.length).toBeLessThan(300)
  for (const good of [undefined, "", "run-1", "agent@host:2"]) expect(sessionHeaderRefusal({ [HEADER]: good }, HEADER)).toBeNull()
})

test("a request naming a bad session id gets a 400 in its protocol's shape and reaches neither the upstream nor the records", async () => {
  const rig = await startRig([textStream("ok")])
  try {
    const body = { model: "m", stream: false, messages: [{ role: "user", content: "y" }] }
    const refused = await post(`${rig.proxy.url}/v1/chat/completions`, body, { [HEADER]: "../../x" })
    expect(refused.status).toBe(400)
    expect(JSON.parse(refused.text).error.message).toContain(HEADER)
    expect(rig.server.requests.length).toBe(0)
    expect(records(rig.events).length).toBe(0)
    const named = await post(`${rig.proxy.url}/v1/chat/completions`, body, { [HEADER]: "run-1" })
    expect(named.status).toBe(200)
    expect(records(rig.events)[0]?.session).toBe("run-1")
  } finally {
    await rig.close()
  }
}, 30_000)
