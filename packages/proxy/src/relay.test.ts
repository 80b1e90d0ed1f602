/**
 * The relay on its own, between a hand-fed upstream and a recording client (no sockets): the ends
 * a scripted server does not produce, such as a last event whose blank line never came.
 */
import { EventEmitter } from "node:events"
import { describe, expect, test } from "bun:test"
import type { ClientReply } from "./client-reply.js"
import type { UpstreamReply } from "./fetch-reply.js"
import { chatProtocol } from "./protocols/chat.js"
import { replyGuardsOf, type ReplyGuards } from "./proxy-settings.js"
import { KEEP_ALIVE, relayStream, STILL_COMING, type RelayEnd, type RelayLimits } from "./relay.js"

class FedUpstream extends EventEmitter {
  readonly headers = {}
  pause(): this {
    return this
  }
  resume(): this {
    return this
  }
}

class RecordingClient extends EventEmitter {
  text = ""
  destroyed = false
  headersSent = true
  writableFinished = false
  writeHead(): this {
    return this
  }
  write(chunk: string | Uint8Array): boolean {
    this.text += typeof chunk === "string" ? chunk : new TextDecoder().decode(chunk)
    return true
  }
  end(): this {
    this.writableFinished = true
    return this
  }
}

const bytes = (text: string) => Buffer.from(text)
const event = (json: object) => `data: ${JSON.stringify(json)}\n\n`
const textEvent = (content: string) => event({ id: "c", choices: [{ index: 0, delta: { content } }] })
const callEvent = (args: string) => event({ id: "c", choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: "call_1", function: { name: "bash", arguments: args } }] } }] })
const roleEvent = event({ id: "c", choices: [{ index: 0, delta: { role: "assistant" } }] })

/** Relays what `feed` sends, then (unless `silent`) the upstream's end; the relay's end and what the client got. */
const relayed = async (feed: (up: FedUpstream) => unknown, guard: boolean | ReplyGuards = false, limits: Partial<RelayLimits> = {}, silent = false, lastAttempt = false): Promise<{ end: RelayEnd; text: string }> => {
  const upstream = new FedUpstream()
  const client = new RecordingClient()
  const done = relayStream({
    protocol: chatProtocol,
    watch: chatProtocol.watch({ model: "m", stream: true }),
    upstream: upstream as unknown as UpstreamReply,
    first: null,
    ended: () => false,
    abortUpstream: () => {},
    client: client as unknown as ClientReply,
    guards: guard === true ? replyGuardsOf({}) : guard === false ? null : guard,
    limits: { maxResponseBytes: 1 << 20, maxEventBytes: 1 << 16, chunkTimeoutMs: 5_000, keepAliveMs: 60_000, ...limits },
    textCalls: null,
    refuseCalls: () => null,
    lastAttempt
  })
  await feed(upstream)
  if (!silent) upstream.emit("end")
  return { end: await done, text: client.text }
}

describe("relayStream", () => {
  test("a last event with no blank line after it, holding a call cut off: the call is not passed on", async () => {
    const { end, text } = await relayed((up) => {
      up.emit("data", bytes(roleEvent))
      up.emit("data", bytes(callEvent('{"command": "rm -rf /tmp/x').trimEnd()))
    })
    expect(end.type).toBe("cut-call")
    expect(text).not.toContain("rm -rf")
  })

  test("a last text event with no blank line: the opening events still come first; with no finish after it, the reply failed", async () => {
    const { end, text } = await relayed((up) => {
      up.emit("data", bytes(roleEvent))
      up.emit("data", bytes(textEvent("done").trimEnd()))
    })
    expect(end.type).toBe("failed")
    expect(text.indexOf('"role"')).toBeGreaterThanOrEqual(0)
    expect(text.indexOf('"role"')).toBeLessThan(text.indexOf('"done"'))
  })

  test("a body that ends in the middle of an event: the cut event is dropped (as a client drops it), the error event comes whole on its own", async () => {
    const { end, text } = await relayed((up) => {
      up.emit("data", bytes(roleEvent + textEvent("so far")))
      up.emit("data", bytes('data: {"id":"x","choi'))
    })
    expect(end.type).toBe("failed")
    expect(text.startsWith(roleEvent + textEvent("so far") + "data: {\"error\"")).toBe(true)
    expect(text).not.toContain('"id":"x"')
    expect(text.endsWith("\n\ndata: [DONE]\n\n")).toBe(true)
  })

  test("a whole last event without its blank line gets one, so the error event after it is an event of its own", async () => {
    const { text } = await relayed((up) => up.emit("data", bytes(roleEvent + textEvent("done").trimEnd())))
    expect(text).toContain(textEvent("done") + "data: {\"error\"")
  })

  test("the upstream's error event before any content takes the held opening events with it to the client", async () => {
    const error = event({ error: { message: "overloaded", type: "server_error" } })
    const { end, text } = await relayed((up) => up.emit("data", bytes(roleEvent + error)))
    expect(end.type).toBe("failed")
    expect(text).toBe(roleEvent + error)
  })

  test("a whole call held to the end passes on, in the upstream's bytes", async () => {
    const sent = roleEvent + callEvent('{"command": "ls"}') + "data: [DONE]\n\n"
    const { end, text } = await relayed((up) => up.emit("data", bytes(sent)))
    expect(end.type).toBe("completed")
    expect(text).toBe(sent)
  })

  test("a loop is cut mid-chunk: the events up to the trip go out, then the notice and the end; nothing after", async () => {
    const loop = Array.from({ length: 400 }, () => textEvent("the same words again ")).join("")
    const { end, text } = await relayed((up) => up.emit("data", bytes(loop + textEvent("AFTER"))), true)
    expect(end.type).toBe("cut")
    expect(text).not.toContain("AFTER")
    expect(text).toMatch(/data: \[DONE\]\n\n$/)
    expect(text.split("the same words again").length - 1).toBeLessThan(400)
  })

  test("while a call streams its arguments the client gets a keep-alive comment now and then, and the call whole after it", async () => {
    const args = ['{"path": "big.txt", ', '"content": "line 1\\n', 'line 2\\n', 'line 3"}']
    const { end, text } = await relayed(
      async (up) => {
        up.emit("data", bytes(roleEvent))
        for (const part of args) {
          up.emit("data", bytes(callEvent(part)))
          await Bun.sleep(30)
        }
        up.emit("data", bytes("data: [DONE]\n\n"))
      },
      false,
      { keepAliveMs: 20 }
    )
    expect(end.type).toBe("completed")
    expect(text.startsWith(KEEP_ALIVE)).toBe(true)
    expect(text.replaceAll(KEEP_ALIVE, "")).toBe(roleEvent + args.map(callEvent).join("") + "data: [DONE]\n\n")
  })

  test("pings and empty deltas with no content yet: the client gets a keep-alive now and then, then the opening and the content", async () => {
    const empty = event({ id: "c", choices: [{ index: 0, delta: {} }] })
    const { end, text } = await relayed(
      async (up) => {
        up.emit("data", bytes(roleEvent))
        for (let i = 0; i < 4; i++) {
          up.emit("data", bytes(i % 2 === 0 ? ": ping\n\n" : empty))
          await Bun.sleep(30)
        }
        up.emit("data", bytes(textEvent("hi") + "data: [DONE]\n\n"))
      },
      false,
      { keepAliveMs: 20 }
    )
    expect(end.type).toBe("completed")
    expect(text.startsWith(STILL_COMING)).toBe(true)
    expect(text.replaceAll(STILL_COMING, "")).toBe(roleEvent + ": ping\n\n" + empty + ": ping\n\n" + empty + textEvent("hi") + "data: [DONE]\n\n")
  })

  test("a reply that named its finish, then went silent without its terminator: the held call passes, the reply ends complete", async () => {
    const finish = event({ id: "c", choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] })
    const { end, text } = await relayed((up) => void up.emit("data", bytes(roleEvent + callEvent('{"command": "ls"}') + finish)), false, { chunkTimeoutMs: 100 }, true)
    expect(end.type).toBe("completed")
    expect(text).toBe(roleEvent + callEvent('{"command": "ls"}') + finish + "data: [DONE]\n\n")
  })

  test("whole calls held, then the connection resets before the reply's end: asked for again while nothing was sent; on the last attempt, the calls and the error", async () => {
    const call = callEvent('{"command": "ls"}')
    const reset = (up: FedUpstream) => {
      up.emit("data", bytes(roleEvent + call))
      up.emit("error", Object.assign(new Error("socket hang up"), { code: "ECONNRESET" }))
    }
    const first = await relayed(reset, false, {}, true)
    expect(first.end).toMatchObject({ type: "cut-call", wrote: false, name: "bash" })
    expect(first.text).toBe("")
    const last = await relayed(reset, false, {}, true, true)
    expect(last.end.type).toBe("failed")
    expect(last.text.startsWith(roleEvent + call)).toBe(true)
    expect(last.text).toContain("ECONNRESET")
  })

  test("text already sent, whole calls held, then a reset: the calls and the error, not asked again", async () => {
    const call = callEvent('{"command": "ls"}')
    const { end, text } = await relayed(
      (up) => {
        up.emit("data", bytes(roleEvent + textEvent("Listing. ") + call))
        up.emit("error", Object.assign(new Error("socket hang up"), { code: "ECONNRESET" }))
      },
      false,
      {},
      true
    )
    expect(end.type).toBe("failed")
    expect(text).toContain(call)
  })

  test("a stream's guards go back to the route's pools when its relay ends, completed, cut or failed, and the next stream takes them", async () => {
    const guards = replyGuardsOf({})
    const loop = Array.from({ length: 400 }, () => textEvent("the same words again ")).join("")
    const completed = await relayed((up) => up.emit("data", bytes(roleEvent + textEvent("fine") + callEvent('{"command": "ls"}') + "data: [DONE]\n\n")), guards)
    expect(completed.end.type).toBe("completed")
    expect([guards.replies.idleCount, guards.arguments.idleCount]).toEqual([1, 1])
    const cut = await relayed((up) => up.emit("data", bytes(loop)), guards)
    expect(cut.end.type).toBe("cut")
    const failed = await relayed((up) => up.emit("data", bytes(roleEvent + textEvent("so far"))), guards)
    expect(failed.end.type).toBe("failed")
    // One guard of each kind served all three streams, and the one that tripped was started over.
    expect([guards.replies.idleCount, guards.arguments.idleCount]).toEqual([1, 1])
    const again = await relayed((up) => up.emit("data", bytes(loop)), guards)
    expect(again.text.split("the same words again").length).toBe(cut.text.split("the same words again").length)
  })

  test("streams open at the same time each take a guard of their own", async () => {
    const guards = replyGuardsOf({})
    let release: () => void = () => {}
    const held = new Promise<void>((resolve) => (release = resolve))
    const first = relayed(async (up) => {
      up.emit("data", bytes(roleEvent + textEvent("one")))
      await held
      up.emit("data", bytes("data: [DONE]\n\n"))
    }, guards)
    const second = await relayed((up) => up.emit("data", bytes(roleEvent + textEvent("two") + "data: [DONE]\n\n")), guards)
    expect(guards.replies.idleCount).toBe(1)
    release()
    expect((await first).end.type).toBe("completed")
    expect(second.end.type).toBe("completed")
    expect(guards.replies.idleCount).toBe(2)
  })
})
