import { describe, expect, test } from "bun:test"
import type { AssistantMessage } from "@loopguard/core/model"
import type { AuditIncident } from "@loopguard/effect/audit"
import { escapeHtml, jsonForScript } from "./escape.js"
import { renderIndexPage } from "./index-page.js"
import { pageNames, sessionPageName, wantsFolder } from "./page-files.js"
import { clip, CLIP_INPUT, CLIP_OUTPUT, CLIP_TEXT, stepView, type RunPage } from "./page-model.js"
import { logRedactor } from "../render/env-secrets.js"
import { renderRunPage } from "./run-page.js"
import { spanOf, summarize } from "./summary.js"

const incident = (step: number, detector: string, action: string, kind: AuditIncident["kind"], detail: Record<string, unknown> = {}): AuditIncident => ({ step, detector, action, kind, detail })

const HOSTILE = `</script><script>alert(1)</script><img src=x onerror="fetch('http://x')">`

const reply = (text: string, extra: Partial<AssistantMessage> = {}): AssistantMessage => ({
  role: "assistant",
  id: "s0",
  parentId: "",
  step: 0,
  parts: [
    { type: "reasoning", text: "think" },
    { type: "text", text },
    { type: "tool", callId: "c1", name: "bash", input: { command: "npm test" }, state: "error", output: "x".repeat(5000), exitCode: 1, error: "exit code 1" }
  ],
  ...extra
})

describe("escaping", () => {
  test("HTML text and attributes; JSON that cannot close its script element", () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe("&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;")
    const json = jsonForScript({ t: HOSTILE + "\u2028" })
    expect(json).not.toContain("<")
    expect(json).not.toContain("\u2028")
    expect(JSON.parse(json)).toEqual({ t: HOSTILE + "\u2028" })
  })
})

describe("page model", () => {
  test("long texts are clipped with a count; every string goes through the redactor", () => {
    expect(clip("abcdef", 3)).toBe("abc\n… (3 more characters not shown)")
    const v = stepView(0, 7, [{ role: "user", id: "u", text: "key sk-proj-abcdefghijklmnopqrstuvwxyz0123456789" }], reply("done"), logRedactor({}))
    expect(v.users[0]).not.toContain("sk-proj-abcdefghijklmnopqrstuvwxyz0123456789")
    expect(v.users[0]).toContain("[REDACTED]")
    expect(v).toMatchObject({ n: 0, line: 7, reasoning: "think", text: "done", calls: [{ name: "bash", input: '{"command":"npm test"}', exit: 1, state: "error" }] })
    expect(v.calls[0]!.output!.length).toBeLessThan(2100)
  })
})

describe("page model: redacted before clipped", () => {
  test("a key cut by the clip boundary shows none of itself", () => {
    const aws = "AKIAIOSFODNN7EXAMPQZ"
    const key = "sk-proj-CLIPKEYabcdefghijklmnop0123456789"
    const ghp = "ghp_CLIPabcdefghijklmnopqrstuvwxyz012345"
    const cut = (secret: string, max: number) => "x".repeat(max - secret.length + 2) + " " + secret
    const toolReply = reply("done", {
      parts: [{ type: "tool", callId: "c1", name: "bash", input: { command: "y".repeat(CLIP_INPUT - 40) + " " + ghp }, state: "completed", output: cut(key, CLIP_OUTPUT) }]
    })
    const v = stepView(0, 1, [{ role: "user", id: "u", text: cut(aws, CLIP_TEXT) }], toolReply, logRedactor({}))
    expect(v.users[0]).not.toContain(aws.slice(0, 8))
    expect(v.calls[0]!.output).not.toContain(key.slice(0, 12))
    expect(v.calls[0]!.input).not.toContain(ghp.slice(0, 8))
  })
})

describe("page model: a call's input", () => {
  // The commands of an outside pass: each secret is quoted, which the input's JSON text escapes
  // (the redactor reads escaped quotes: makeRedactor).
  test.each([
    ["export DB_PASSWORD=\"Hx7pQ2vLm9\"", "Hx7pQ2vLm9"],
    ["PGPASSWORD=\"Ky4nR8sTw2\" psql -h db", "Ky4nR8sTw2"],
    ["sshpass -p \"Zt5mW3kNp8\" ssh host", "Zt5mW3kNp8"],
    ["aws configure set aws_secret_access_key \"Jm3kL8pQz7Xc\"", "Jm3kL8pQz7Xc"],
    ["echo '{\"password\": \"Vb6nM1qWe4\"}'", "Vb6nM1qWe4"]
  ])("%s: the quoted secret is not shown", (command, secret) => {
    const toolReply = reply("done", { parts: [{ type: "tool", callId: "c1", name: "bash", input: { command }, state: "completed", output: "ok" }] })
    const v = stepView(0, 1, [], toolReply, logRedactor({}))
    expect(v.calls[0]!.input).not.toContain(secret)
    expect(v.calls[0]!.input).toContain("[REDACTED]")
  })
})

describe("summary", () => {
  test("spans: from/to steps, else the count up to the step; counts by detector and kind; the first loop and the first act", () => {
    expect(spanOf(incident(9, "streak-crop", "detect", "loop", { fromStep: 5, toStep: 9 }))).toEqual({ from: 5, to: 9, detector: "streak-crop" })
    expect(spanOf(incident(9, "repeated-action", "note", "loop", { count: 3 }))).toEqual({ from: 7, to: 9, detector: "repeated-action" })
    expect(spanOf(incident(9, "breaker", "degrade", "fault"))).toBeNull()
    // Known calls: the repeats are found by walking back over the steps that made the same call.
    const calls: Record<number, string> = { 9: "bash npm test", 8: "edit a.ts", 7: "bash npm test", 6: "bash npm test", 5: "bash ls" }
    const sigs = (n: number) => new Set(calls[n] === undefined ? [] : [calls[n]!])
    expect(spanOf(incident(9, "repeated-failure", "note", "loop", { count: 3 }), sigs)).toEqual({ from: 6, to: 9, detector: "repeated-failure" })
    const s = summarize([incident(3, "breaker", "degrade", "fault"), incident(4, "repeated-action", "note", "loop", { count: 3 }), incident(4, "bash-retry", "pause", "loop")])
    expect(s.firstLoop).toEqual({ step: 2, detector: "repeated-action", firedAt: 4 })
    // Of the loops filed together, the one that reaches back furthest says where the loop began.
    const together = summarize([incident(4, "bash-retry", "pause", "loop"), incident(4, "streak-crop", "detect", "loop", { fromStep: 1, toStep: 4 })])
    expect(together.firstLoop).toEqual({ step: 1, detector: "streak-crop", firedAt: 4 })
    expect(s.firstAction?.detector).toBe("breaker")
    expect(s.byKind).toEqual([{ kind: "loop", count: 2 }, { kind: "fault", count: 1 }])
    expect(s.byDetector).toContainEqual({ detector: "bash-retry", kind: "loop", count: 1 })
  })
})

describe("run page", () => {
  const page: RunPage = {
    title: `run ${HOSTILE}`,
    file: `logs/${HOSTILE}.jsonl`,
    format: "claude-code",
    steps: [stepView(0, 2, [{ role: "user", id: "u", text: HOSTILE }], reply(HOSTILE), logRedactor({}))],
    incidents: [incident(0, HOSTILE, "pause", "loop", { detail: HOSTILE })],
    exit: { reason: "try_best_paused", step: 0 },
    notes: [`f:1: ${HOSTILE}`]
  }
  const html = renderRunPage(page)

  test("log text never becomes markup: one script element of ours plus the data, nothing loaded from anywhere", () => {
    expect(html.match(/<script/g)).toHaveLength(2)
    expect(html).not.toContain("<img")
    expect(html).not.toMatch(/\s(src|href)=["']?(https?:)?\/\//)
    expect(html).toContain(`http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;`)
  })

  test("the summary names steps, incidents, the first loop and what loopguard would have done", () => {
    expect(html).toContain("<b>1</b>")
    expect(html).toContain("stop: try_best_paused")
    expect(html).toContain(`href="#incident-0"`)
  })
})

describe("page files and index", () => {
  test("OUT is a folder for several runs, a folder input, an existing folder or a trailing slash", () => {
    expect(wantsFolder("a.html", 1, false, false)).toBe(false)
    expect([wantsFolder("o", 2, false, false), wantsFolder("o", 1, true, false), wantsFolder("o", 1, false, true), wantsFolder("o/", 1, false, false)]).toEqual([true, true, true, true])
    expect(pageNames(["a/run.jsonl", "b/run.jsonl", "index.json", "x y.json"])).toEqual(["run.html", "run-2.html", "index-2.html", "x_y.html"])
  })

  test("sessions show --html DIR: the page is named after the session id, made safe (no folder part, no leading dot)", () => {
    expect(["run", "s.1", "parent/task-3-1", "../etc/x", "..", "a b\nc"].map(sessionPageName)).toEqual([
      "run.html",
      "s.1.html",
      "parent_task-3-1.html",
      "_etc_x.html",
      "session.html",
      "a_b_c.html"
    ])
  })

  test("the index has one sortable row per run, linking its page; a failed run has no link", () => {
    const html = renderIndexPage([
      { file: "a.jsonl", href: "a.html", format: "codex", steps: 10, incidents: 2, firstIncident: "step 4 bash-retry → pause", firstIncidentStep: 4, outcome: "final at step 9" },
      { file: `b${HOSTILE}`, format: "", steps: 0, incidents: 0, firstIncident: "", firstIncidentStep: null, outcome: "failed: b:1: bad JSON" }
    ])
    expect(html.match(/<tr>/g)).toHaveLength(3)
    expect(html).toContain(`<a href="a.html">a.jsonl</a>`)
    expect(html).not.toContain("<img")
    expect(html.match(/<th><button/g)).toHaveLength(6)
  })
})
