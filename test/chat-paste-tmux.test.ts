/**
 * A long paste at chat's prompt in a real terminal (tmux), after each kind of question chat asks
 * on that terminal: the shell question at the start, the try-best pause menu, and earlier turns.
 * Each of these opens its own readline on stdin; a paste into any but the first was measured
 * character by character against the whole line (16 KB: 23 s, with Ctrl-C unread meanwhile).
 * The bounds are generous (10 s for what takes well under a second) for a loaded machine.
 */
import { startScriptedServer, textStream, toolCallStream, type ScriptedServer } from "@loopguard/ai-sdk/testing"
import { describe, expect, test } from "bun:test"
import { join, resolve } from "node:path"
import { terminalEnv, terminalScratch } from "./tmux/terminal-fixture.js"
import { startTmux, tmuxPath, type Pane } from "./tmux/tmux-driver.js"
import { skipName } from "./skip-name.js"

const ROOT = resolve(import.meta.dir, "..")
const TMUX = tmuxPath()
const IN_CI = process.env["CI"] === "true"
const tmuxSkip = TMUX === null && !IN_CI ? "tmux is not installed (.ci/tmux.sh)" : undefined
if (TMUX === null) console.warn(`chat-paste-tmux.test.ts: tmux is not installed, these terminal tests are SKIPPED${IN_CI ? " (and fail: CI=true)" : ""}`)

const { servers, terminals, tempDir } = terminalScratch("lg-paste-")

/** 16 KB of text with no line break, as a paste of a long document arrives. */
const PASTE = "lorem ipsum dolor ".repeat(1000).slice(0, 16_000)
const PASTE_LIMIT_MS = 10_000

type WireMessage = { role: string; content: unknown }
const lastUserText = (server: ScriptedServer): string => {
  const messages = (server.requests[server.requests.length - 1]?.body?.messages ?? []) as ReadonlyArray<WireMessage>
  const c = [...messages].reverse().find((m) => m.role === "user")?.content
  return typeof c === "string" ? c : Array.isArray(c) ? c.map((p: { text?: string }) => p.text ?? "").join("") : ""
}

/** Pastes the text and Enter; resolves once the request carrying it reached the server. */
const pasteAndSend = async (pane: Pane, server: ScriptedServer): Promise<void> => {
  const before = server.requests.length
  pane.keys("-l", PASTE)
  pane.keys("Enter")
  await pane.waitFor(() => server.requests.length > before, PASTE_LIMIT_MS)
  expect(lastUserText(server)).toBe(PASTE)
}

/** The exit status, read once it is known. */
const exitOf = async (pane: Pane): Promise<number | null> => {
  let status: number | null = null
  await pane.waitFor(() => (status = pane.exitStatus()) !== null, PASTE_LIMIT_MS)
  return status
}

const failingCommand = [1, 2, 3, 4, 5, 6].map((i) => toolCallStream("bash", { command: "exit 1" }, { id: `fail${i}`, text: "Running it again." }))

describe.skipIf(tmuxSkip !== undefined)(skipName("a long paste at chat's prompt", tmuxSkip), () => {
  test("is read at once after the shell question, after a pause menu and after turns; Ctrl-C after a paste quits", async () => {
    const server = await startScriptedServer([textStream("Got the first paste."), ...failingCommand, textStream("Got the second paste.")])
    servers.push(server)
    const tmux = startTmux(TMUX!, `lg-paste-${process.pid}`)
    terminals.push(tmux)
    const argv = [process.execPath, "run", join(ROOT, "packages/cli/src/main.ts"), "chat", "--base-url", server.baseURL, "--model", server.modelId, "--cwd", tempDir()]
    const pane = tmux.start("chat", argv, { cwd: ROOT, env: terminalEnv({ NO_COLOR: "1", OPENAI_API_KEY: "sk-test-terminal", LOOPGUARD_TRY_BEST_ENABLED: "1" }) })

    await pane.waitFor("Shell? [y/A/n]")
    pane.type("y")
    await pane.waitFor("you> ")
    await pasteAndSend(pane, server)
    await pane.waitFor("Got the first paste.")

    // A failing command again and again: try-best pauses and chat asks what now.
    pane.type("make the build pass")
    await pane.waitFor("What now?")
    pane.type("1")
    await pane.waitFor(/→ stop[\s\S]*you> $/m)
    await pasteAndSend(pane, server)
    await pane.waitFor("Got the second paste.")

    // Ctrl-C right after a paste is read at once, not after the paste: twice quits with 130.
    await pane.waitFor((s) => s.trimEnd().endsWith("you>"))
    pane.keys("-l", PASTE)
    pane.keys("C-c")
    await pane.waitFor("Ctrl-C again", PASTE_LIMIT_MS)
    pane.keys("C-c")
    expect(await exitOf(pane)).toBe(130)
  }, 180_000)
})

if (TMUX === null && IN_CI) {
  test("tmux is installed (CI runs the terminal tests of a paste in chat)", () => {
    throw new Error("tmux is missing on CI: .ci/tmux.sh should have installed it")
  })
}
