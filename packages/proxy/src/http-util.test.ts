/** The headers the proxy passes on, each way: never those of one hop only. */
import { describe, expect, test } from "bun:test"
import { clientHeaders, upstreamHeaders } from "./http-util.js"

const open = { token: null, upstreamKey: null }

describe("hop-by-hop headers", () => {
  test("upstream: the fixed ones, Proxy-Connection, and those the client's Connection header names stay behind", () => {
    const out = upstreamHeaders(
      { connection: "close, X-Secret", "x-secret": "hopsecret", "proxy-connection": "keep-alive", "keep-alive": "timeout=5", te: "trailers", authorization: "Bearer sk-client", "content-type": "application/json", "x-other": "kept" },
      [],
      open,
      "chat",
      false
    )
    expect(out).toEqual({ authorization: "Bearer sk-client", "content-type": "application/json", "x-other": "kept" })
  })

  test("to the client: those the upstream's Connection header names stay behind too", () => {
    const out = clientHeaders({ connection: "x-upstream-hop", "x-upstream-hop": "1", "content-type": "text/event-stream", "x-request-id": "r1" }, { "x-loopguard-session": "s" }, false, [])
    expect(out).toEqual({ "content-type": "text/event-stream", "x-request-id": "r1", "x-loopguard-session": "s" })
  })
})
