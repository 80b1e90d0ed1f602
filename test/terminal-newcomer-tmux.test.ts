/**
 * What a new user meets on a real terminal (tmux): `chat` asking before it offers an unapproved
 * shell, and `run` showing that the model has gone silent, for how long and until when. The CLI
 * talks HTTP to the scripted server through the real AI SDK provider; the test types with
 * send-keys and reads the screen.
 */
import { startScriptedServer, textStream, toolCallStream, type ScriptedResponse, type ScriptedServer } from "@loopguard/ai-sdk/testing"
import { describe, expect, test } from "bun:test"
import { join, resolve } from "node:path"
import { terminalEnv, terminalScratch } from "./tmux/terminal-fixture.js"
import { startTmux, tmuxPath } from "./tmux/tmux-driver.js"
import { skipName } from "./skip-name.js"

const ROOT = resolve(import.meta.dir, "..")
const TMUX = tmuxPath()
const IN_CI = process.env["CI"] === "true"
const tmuxSkip = TMUX === null && !IN_CI ? "tmux is not installed (.ci/tmux.sh)" : undefined
if (TMUX === null) console.warn(`terminal-newcomer-tmux.test.ts: tmux is not installed, these terminal tests are SKIPPED${IN_CI ? " (and fail: CI=true)" : ""}`)

const { servers, terminals, tempDir } = terminalScratch("lg-term-")

let sockets = 0
const inTerminal = (argv: ReadonlyArray<string>) => {
  const tmux = startTmux(TMUX!, `lg-term-${process.pid}-${++sockets}`)
  terminals.push(tmux)
  return tmux.start("t", [process.execPath, "run", join(ROOT, "packages/cli/src/main.ts"), ...argv], {
    cwd: ROOT,
    env: terminalEnv({ NO_COLOR: "1", OPENAI_API_KEY: "sk-test-terminal" })
  })
}

const serve = async (script: ReadonlyArray<ScriptedResponse>) => {
  const server = await startScriptedServer(script)
  servers.push(server)
  return server
}

const offeredTools = (server: ScriptedServer, i: number): Array<string> =>
  ((server.requests[i]?.body?.tools ?? []) as Array<{ function: { name: string } }>).map((t) => t.function.name)

describe.skipIf(tmuxSkip !== undefined)(skipName("chat asks before it offers an unapproved shell", tmuxSkip), () => {
  test("n: the greeting says the shell is off and the model is offered no bash", async () => {
    const server = await serve([textStream("Hello.")])
    const cwd = tempDir()
    const pane = inTerminal(["chat", "--base-url", server.baseURL, "--model", server.modelId, "--cwd", cwd])
    await pane.waitFor(`The model can run shell commands (bash) in ${cwd} with your rights.`)
    await pane.waitFor("Shell? [y/A/n]")
    pane.type("n")
    await pane.waitFor("shell: off (no bash tool)")
    pane.type("hi")
    await pane.waitFor("Hello.")
    expect(offeredTools(server, 0)).toEqual(["read_file", "list_dir"])
    pane.type("/quit")
  }, 90_000)

  test("Enter: each command is asked about before it runs", async () => {
    const server = await serve([toolCallStream("bash", { command: "touch made-by-model" }), textStream("Done.")])
    const cwd = tempDir()
    const pane = inTerminal(["chat", "--base-url", server.baseURL, "--model", server.modelId, "--cwd", cwd])
    await pane.waitFor("Shell? [y/A/n]")
    pane.keys("Enter")
    await pane.waitFor("shell: bash asks you before each command")
    pane.type("make the file")
    await pane.waitFor("Run it? [y/N]")
    expect(offeredTools(server, 0)).toContain("bash")
    pane.type("n")
    await pane.waitFor("Done.")
    pane.type("/quit")
  }, 90_000)
})

describe.skipIf(tmuxSkip !== undefined)(skipName("run on a terminal while the model is silent", tmuxSkip), () => {
  test("mid-reply silence: the screen says loopguard is waiting, for how long, and when it gives up", async () => {
    // (The last characters of a piece wait for the next one while they could begin a secret: the
    // first piece is long enough that its beginning shows at once.)
    const stalled: ScriptedResponse = { type: "stream", chunks: [{ text: "Looking at the files of the repository, one by one," }, { text: " now done." }], stallAfterChunks: 1, stallMs: 6_000 }
    const server = await serve([stalled])
    const pane = inTerminal(["run", "--base-url", server.baseURL, "--model", server.modelId, "--prompt", "go", "--cwd", tempDir()])
    await pane.waitFor("Looking at the files")
    const screen = await pane.waitFor(/the model has sent nothing for \d+ s \(loopguard gives up after 8 min of silence\)/, 30_000)
    expect(screen).toContain("Looking at the files")
    await pane.waitFor(/now done\.[\s\S]*── done:/, 30_000)
  }, 90_000)
})
