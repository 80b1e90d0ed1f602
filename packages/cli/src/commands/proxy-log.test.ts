import type { RequestRecord } from "@loopguard/proxy"
import { describe, expect, test } from "bun:test"
import { describeEvent, describeRecord } from "./proxy.js"
import { upstreamShown } from "@loopguard/proxy"

const record = (patch: Partial<RequestRecord> = {}): RequestRecord => ({
  session: "s1",
  protocol: "chat",
  model: "gpt-4o",
  action: "pass",
  incidents: [],
  outcome: "completed",
  status: 200,
  retries: 0,
  ms: 5,
  ...patch
})

/** Nothing a terminal acts on: C0/C1 controls (newline included), DEL, bidi controls. */
const RAW_CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/

test("the proxy's log line shows a client's model name and an upstream's words escaped: no escape acts, no line is forged", () => {
  const model = "gpt\u001b]0;PWNED\u0007\u001b[2J\u202emodel\nloopguard proxy: FORGED LINE admin pass → completed 200, 1 ms"
  const line = describeEvent({ type: "request", record: record({ model, detail: "upstream said \u001b[31mred\r\nx" }) })
  expect(line).not.toMatch(RAW_CONTROL)
  expect(line).toContain("gpt\\x1b]0;PWNED\\x07\\x1b[2J\\u202emodel\\nloopguard proxy: FORGED LINE")
  expect(line).toContain("(upstream said \\x1b[31mred\\r\\nx)")
  expect(describeRecord(record({ model }))).not.toMatch(RAW_CONTROL)
  expect(describeEvent({ type: "store-error", message: "bad\nloopguard proxy: forged" })).toBe("session store: bad\\nloopguard proxy: forged")
  expect(describeEvent({ type: "retry", session: "s\u202e1", retry: { attempt: 1, delayMs: 10, reason: "r\u0007", status: 503 } as never })).not.toMatch(RAW_CONTROL)
})

test("an ordinary record reads as before", () => {
  expect(describeEvent({ type: "request", record: record() })).toBe("s1 chat gpt-4o pass → completed 200, 5 ms")
})

describe("upstreamShown", () => {
  test("the listening line's upstream: no user name, password or query (a ?key= is a key)", () => {
    expect(upstreamShown("http://user:pw@127.0.0.1:8080/v1?key=QUERYSECRET123#x")).toBe("http://127.0.0.1:8080/v1")
    expect(upstreamShown("https://api.example.test/v1")).toBe("https://api.example.test/v1")
  })
})
