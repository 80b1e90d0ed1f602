/**
 * A Responses client that stores its responses names earlier items by id (`item_reference`), the
 * proxy's own answers among them; the upstream never saw those, so they go up spelled out.
 */
import { DEFAULT_CONFIG } from "@loopguard/effect/config"
import { describe, expect, test } from "bun:test"
import { CUT_MARK, cutNotice, STOP_MARK, stopAnswer } from "../notices.js"
import { judgeRequest } from "../verdict.js"
import { responsesProtocol as responses } from "./responses.js"

const user = (text: string) => ({ role: "user", content: [{ type: "input_text", text }] })
const ref = (id: string) => ({ type: "item_reference", id })

/** The ids of the message items in a Responses answer, streamed or not. */
const messageIds = (answer: { readonly body: string }): Array<string> => [...answer.body.matchAll(/"type":"message","id":"([^"]+)"|"id":"([^"]+)","type":"message"/g)].map((m) => m[1] ?? m[2]!)

describe("the proxy's own items in a Responses request", () => {
  test("its stop answer, streamed or not, has the id the proxy knows it by", () => {
    const text = stopAnswer("a loop", "evidence", "next")
    for (const stream of [false, true]) expect(new Set(messageIds(responses.answer({ model: "m", stream }, text)))).toEqual(new Set(["msg_loopguard_stop"]))
  })

  test("a reference to the stop answer goes up as an assistant message with its mark; the verdict reads it as a stop", () => {
    const body = { model: "m", input: [user("fix it"), ref("rs_upstream_1"), ref("msg_loopguard_stop")] }
    const out = responses.ownItemsSpelledOut!(body)
    expect(out.input[1]).toEqual(ref("rs_upstream_1"))
    expect(out.input[2].role).toBe("assistant")
    expect(out.input[2].content).toContain(STOP_MARK)
    // The agent came back after the stop without a new user message: still stopped.
    expect(judgeRequest(responses.conversation(out).messages, DEFAULT_CONFIG).stop?.detector).toBe("stopped")
    // The client's body is left as it was.
    expect(body.input[2]).toEqual(ref("msg_loopguard_stop"))
  })

  test("a reference to a cut notice reads as a cut (the escalation counts it); a body naming none of the proxy's items is left alone", () => {
    for (const id of ["msg_loopguard_cut", "msg_loopguard_cut_2"]) {
      const out = responses.ownItemsSpelledOut!({ input: [user("write"), ref(id)] })
      expect(out.input[1].content).toContain(CUT_MARK)
    }
    expect(responses.ownItemsSpelledOut!({ input: [user("write"), ref("msg_loopguard_note_1")] }).input[1].content).toContain("cut off")
    expect(responses.ownItemsSpelledOut!({ input: [user("write"), ref("msg_abc")] })).toBeNull()
    expect(responses.ownItemsSpelledOut!({ input: "just text" })).toBeNull()
    const cut = responses.ownItemsSpelledOut!({ input: [user("write"), ref("msg_loopguard_cut_0"), user("go on")] })
    expect(judgeRequest(responses.conversation(cut).messages, DEFAULT_CONFIG).inserts.map((i) => i.kind)).toEqual(["text-repeat-remind"])
  })

  test("a cut reply the proxy ends with a message item of its own names it as a cut; another notice, as a note", () => {
    const opened = '{"type":"response.output_item.added","output_index":0,"item":{"type":"reasoning","id":"rs_1","summary":[]}}'
    for (const [notice, prefix] of [[cutNotice("a block"), "msg_loopguard_cut_"], ["\n\n[loopguard: the call was cut off]", "msg_loopguard_note_"]] as const) {
      const watch = responses.watch({ model: "m", stream: true })
      watch.see({ event: "response.output_item.added", data: opened, raw: `data: ${opened}\n\n` })
      expect(watch.close(notice)).toContain(`"id":"${prefix}1"`)
    }
  })
})
