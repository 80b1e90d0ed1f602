/**
 * `loopguard chat` in a real terminal (tmux), end to end: the CLI process talks HTTP to the
 * scripted server through the real AI SDK provider; the test types with send-keys and reads the
 * screen with capture-pane. Covered: several turns in one session, slash commands, an incident
 * banner, Ctrl-C during a streaming turn (the turn ends with its report, the chat goes on), the live
 * status line while the model is silent,
 * colour on a terminal and NO_COLOR, and `--session` resuming a kept session.
 */
import { describe, expect, test } from "bun:test"
import { repeatLoop, startScriptedServer, textStream, type ScriptedResponse, type ScriptedServer } from "@loopguard/ai-sdk/testing"
import { existsSync, readFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { terminalEnv, terminalScratch } from "./tmux/terminal-fixture.js"
import { startTmux, tmuxPath, type Pane } from "./tmux/tmux-driver.js"
import { skipName } from "./skip-name.js"

const ROOT = resolve(import.meta.dir, "..")
const TMUX = tmuxPath()
const IN_CI = process.env["CI"] === "true"
const tmuxSkip = TMUX === null && !IN_CI ? "tmux is not installed (.ci/tmux.sh)" : undefined
if (TMUX === null) {
  console.warn(`chat-tmux.test.ts: tmux is not installed, the terminal tests of loopguard chat are SKIPPED${IN_CI ? " (and fail: CI=true)" : " (install tmux, or run .ci/tmux.sh)"}`)
}

type WireMessage = { role: string; content: unknown }
const textOfContent = (c: unknown): string =>
  typeof c === "string" ? c : Array.isArray(c) ? c.map((p) => (typeof p === "object" && p !== null && "text" in p ? String(p.text) : "")).join("") : ""
const lastUserText = (body: { messages?: ReadonlyArray<WireMessage> }): string =>
  textOfContent([...(body.messages ?? [])].reverse().find((m) => m.role === "user")?.content)
const allText = (body: { messages?: ReadonlyArray<WireMessage> }): string => (body.messages ?? []).map((m) => textOfContent(m.content)).join("\n")

/** Distinct words, so the slow reply never looks like a loop. */
const LONG_STORY = Array.from({ length: 400 }, (_, i) => `word${i}`).join(" ")

/** The model's side of the conversation, chosen by what the user said last. */
const conversation = (body: { messages?: ReadonlyArray<WireMessage> }): ScriptedResponse => {
  const said = lastUserText(body)
  if (said.includes("hello")) return textStream("Hello! The answer is 42.", { reasoning: "The user greets me.", chunkSize: 4, chunkDelayMs: 5 })
  if (said.includes("loop please")) return repeatLoop("I will check the file again to be sure.", 60, { chunkSize: 8 })
  if (said.includes("long story")) return textStream(LONG_STORY, { chunkSize: 6, chunkDelayMs: 40 })
  if (said.includes("are you there")) return textStream("Still here.")
  // Silent for a while before the first chunk: the live status line has time to show.
  if (said.includes("slow please")) return { ...textStream("Slow answer."), stallAfterChunks: 0, stallMs: 5000 }
  if (said.includes("one more")) return textStream("One more answer, with the history intact.")
  // loopguard's own reminder after the loop was cut
  return textStream("Second answer, after the loop.")
}

const { servers, terminals, tempDir } = terminalScratch("lg-chat-")

let sockets = 0
const openChat = (server: ScriptedServer, sessionDir: string, cwd: string, extra: { readonly args?: ReadonlyArray<string>; readonly env?: Record<string, string> } = {}) => {
  const tmux = startTmux(TMUX!, `lg-chat-${process.pid}-${++sockets}`)
  terminals.push(tmux)
  const argv = [process.execPath, "run", join(ROOT, "packages/cli/src/main.ts"), "chat", "--base-url", server.baseURL, "--model", server.modelId, "--session-dir", sessionDir, "--cwd", cwd, ...(extra.args ?? [])]
  // The shell question at the start has its own tests (terminal-newcomer-tmux.test.ts): chosen here.
  return tmux.start("chat", argv, { cwd: ROOT, env: terminalEnv({ LOOPGUARD_TOOLS_CHAT_SHELL: "run", ...extra.env }) })
}

const count = (haystack: string, needle: string) => haystack.split(needle).length - 1

/** The exit status, read once it is known (the same reading the wait saw). */
const exitOf = async (pane: Pane): Promise<number | null> => {
  let status: number | null = null
  await pane.waitFor(() => (status = pane.exitStatus()) !== null)
  return status
}

describe.skipIf(tmuxSkip !== undefined)(skipName("loopguard chat in a terminal", tmuxSkip), () => {
  test("turns, a banner, slash commands, Ctrl-C mid-stream, then resuming with --session", async () => {
    const server = await startScriptedServer(conversation)
    servers.push(server)
    const sessionDir = tempDir()
    const cwd = tempDir()
    const pane = openChat(server, sessionDir, cwd)
    await pane.waitFor("you> ")

    // Turn 1: reasoning then the answer, streamed; colour on a terminal (reasoning dimmed).
    pane.type("hello there")
    await pane.waitFor("── done: finished with an answer")
    expect(pane.screen()).toContain("Hello! The answer is 42.")
    expect(pane.screen(true)).toContain("\u001b[2m")

    // Turn 2: a looping reply is cut; the banner says so in plain words; the chat goes on.
    pane.type("loop please")
    await pane.waitFor("Second answer, after the loop.")
    await pane.waitFor((s) => count(s, "── done:") === 2)
    expect(pane.screen()).toContain("loopguard: The reply started repeating itself")
    // The session carries the earlier turn: the model saw it.
    expect(allText(server.requests[1]!.body)).toContain("Hello! The answer is 42.")

    // Slash commands.
    pane.type("/report")
    await pane.waitFor("this chat: 2 runs")
    const trace = join(cwd, "session.trace.jsonl")
    pane.type(`/export ${trace}`)
    await pane.waitFor("as a trace (v1)")
    const lines = readFileSync(trace, "utf8").trim().split("\n").map((l) => JSON.parse(l))
    expect(lines[0]).toMatchObject({ type: "session", model: server.modelId })
    expect(lines.filter((l) => l.type === "user").map((l) => l.text)).toContain("hello there")

    // Ctrl-C while a reply streams: the turn is cancelled with a report, the connection closed.
    const before = server.requests.length
    pane.type("tell me a long story")
    await pane.waitFor("word12 ")
    pane.keys("C-c")
    await pane.waitFor("── stopped: cancelled")
    const streamed = server.requests[before]!
    await streamed.done
    expect(streamed.outcome).toBe("client-closed")
    expect(pane.screen()).not.toContain("word399")

    // The chat is still usable after the cancel.
    pane.type("are you there?")
    await pane.waitFor("Still here.")

    // While the model is silent, a live status line says so; it is gone once the answer streams.
    pane.type("slow please")
    await pane.waitFor(/· step \d+ · [\d,]+ tokens · [\d.]+ s · waiting for the model/)
    await pane.waitFor(/Slow answer\.[\s\S]*── done:/)
    expect(pane.screen()).not.toContain("waiting for the model")
    pane.type("/quit")
    expect(await exitOf(pane)).toBe(0)

    // Resume the kept session in a new process, without colour (NO_COLOR).
    const id = /session (chat-[\w-]+) ·/.exec(pane.screen())?.[1]
    expect(id).toBeDefined()
    const resumed = openChat(server, sessionDir, cwd, { args: ["--session", id!], env: { NO_COLOR: "1" } })
    await resumed.waitFor(`session ${id} (resumed:`)
    await resumed.waitFor("last answer: Slow answer.")
    resumed.type("one more")
    await resumed.waitFor("One more answer, with the history intact.")
    expect(allText(server.requests[server.requests.length - 1]!.body)).toContain("are you there?")
    expect(resumed.screen(true)).not.toContain("\u001b[")

    // Ctrl-C twice at the prompt quits with 130.
    await resumed.waitFor((s) => count(s, "you> ") >= 2)
    resumed.keys("C-c")
    await resumed.waitFor("Ctrl-C again")
    resumed.keys("C-c")
    expect(await exitOf(resumed)).toBe(130)
    expect(existsSync(join(sessionDir, "sessions.db"))).toBe(true)
  }, 180_000)
})

if (TMUX === null && IN_CI) {
  test("tmux is installed (CI runs the terminal tests of loopguard chat)", () => {
    throw new Error("tmux is missing on CI: .ci/tmux.sh should have installed it")
  })
}
