import { describe, expect, test } from "bun:test"
import { describeCancel } from "./cancel-cause.js"

const reasonOf = (abort: (c: AbortController) => void): unknown => {
  const c = new AbortController()
  abort(c)
  return c.signal.reason
}

describe("why a run was cancelled", () => {
  test("a person's Ctrl-C, a shutdown and a closed output are three causes", () => {
    expect(describeCancel("SIGINT")).toEqual({ cause: "user", message: "cancelled by the user (Ctrl-C)" })
    expect(describeCancel("SIGTERM").cause).toBe("shutdown")
    expect(describeCancel("SIGTERM").message).not.toContain("user (")
    expect(describeCancel("SIGPIPE").cause).toBe("output_closed")
  })

  test("AbortSignal.timeout's reason is the caller's deadline", async () => {
    const signal = AbortSignal.timeout(1)
    await new Promise((done) => signal.addEventListener("abort", done, { once: true }))
    expect(describeCancel(signal.reason)).toMatchObject({ cause: "deadline" })
    expect(describeCancel({ deadline: true }).cause).toBe("deadline")
  })

  test("a bare abort() is the caller's, not claimed to be a person's", () => {
    expect(describeCancel(reasonOf((c) => c.abort()))).toEqual({ cause: "caller", message: "cancelled by the caller (its abort signal)" })
  })

  test("the caller's own words are quoted, bounded and without control characters", () => {
    expect(describeCancel(new Error("request closed by client")).message).toBe("cancelled by the caller: request closed by client")
    const long = describeCancel("x\u001b[2J".repeat(300)).message
    expect(long).not.toContain("\u001b")
    expect(long.length).toBeLessThan(260)
  })
})
