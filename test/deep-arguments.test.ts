/**
 * Tool arguments nested 20,000 deep, over HTTP from the scripted server through the real AI SDK
 * provider to `loopguard run` as a subprocess: the call is refused (never run), the model is told,
 * and the run ends with its report — not a crash.
 */
import { textStream, toolCallStream } from "@loopguard/ai-sdk/testing"
import { expect, test } from "bun:test"
import { resolve } from "node:path"
import { cliEnv, scratch } from "./cli-fixture.js"

const ROOT = resolve(import.meta.dir, "..")
const { serve, workdir } = scratch("lg-deep-")

const runDeep = async (env: Record<string, string>) => {
  const depth = 20_000
  const server = await serve([toolCallStream("bash", `{"command":${"[".repeat(depth)}${"]".repeat(depth)}}`, { id: "c1" }), textStream("Understood.")])
  const child = Bun.spawn([process.execPath, "run", "packages/cli/src/main.ts", "run", "--base-url", server.baseURL, "--model", "m", "--prompt", "go", "--cwd", workdir(), "--json"], {
    cwd: ROOT,
    env: { ...cliEnv(), ...env },
    stdout: "pipe",
    stderr: "pipe"
  })
  const [code, out, err] = await Promise.all([child.exited, new Response(child.stdout).text(), new Response(child.stderr).text()])
  expect(err).toBe("")
  expect(code).toBe(0)
  const lines = out.trim().split("\n").map((l) => JSON.parse(l) as { type: string; report?: { reason: string } })
  expect(lines.at(-1)).toMatchObject({ type: "report", report: { reason: "final" } })
  expect(lines.some((l) => l.type === "tool.started")).toBe(false)
  return JSON.stringify(server.requests[1])
}

test("a tool call nested 20,000 deep is refused and the run reports", async () => {
  // The model was told why: its next request carries the refusal. (The repetition guard is off
  // here: on, it cuts the bracket run as it streams, before the arguments are parsed; below.)
  expect(await runDeep({ LOOPGUARD_REPEAT_ENABLED: "false" })).toContain("nest deeper than 64 levels")
}, 60_000)

test("with the repetition guard on, a bracket run that deep is cut as it streams: never run, the model told", async () => {
  expect(await runDeep({})).toContain("Your output started repeating itself and was stopped")
}, 60_000)
