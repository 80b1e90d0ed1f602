/**
 * The small real tool set of `loopguard run`: read a file, list a directory, run a shell
 * command with a timeout — all confined to the working directory the user names.
 */
import { type ToolDefinition } from "@loopguard/effect"
import { runShell } from "@loopguard/effect/tools"
import { readdir, readFile, stat } from "node:fs/promises"
import { relative, resolve } from "node:path"

const MAX_OUTPUT = 20_000

const inside = (root: string, path: unknown): string => {
  const full = resolve(root, typeof path === "string" && path !== "" ? path : ".")
  const rel = relative(root, full)
  if (rel.startsWith("..")) throw new Error(`path ${String(path)} is outside the working directory`)
  return full
}

const clip = (text: string) => (text.length > MAX_OUTPUT ? text.slice(0, MAX_OUTPUT / 2) + "\n…[cut]…\n" + text.slice(-MAX_OUTPUT / 2) : text)

export const builtinTools = (cwd: string, shellTimeoutMs: number): ReadonlyArray<ToolDefinition> => [
  {
    spec: {
      name: "read_file",
      description: "Read a text file (path relative to the working directory).",
      inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] }
    },
    run: async (input) => ({ state: "completed", output: clip(await readFile(inside(cwd, input["path"]), "utf8")) })
  },
  {
    spec: {
      name: "list_dir",
      description: "List the entries of a directory (path relative to the working directory).",
      inputSchema: { type: "object", properties: { path: { type: "string" } } }
    },
    run: async (input) => {
      const dir = inside(cwd, input["path"])
      const entries = await readdir(dir)
      const lines = await Promise.all(
        entries.sort().map(async (e) => ((await stat(resolve(dir, e)).catch(() => null))?.isDirectory() ? `${e}/` : e))
      )
      return { state: "completed", output: lines.join("\n") }
    }
  },
  {
    spec: {
      name: "bash",
      description: `Run a shell command in the working directory (timeout ${Math.round(shellTimeoutMs / 1000)} s). Returns stdout, stderr and the exit code.`,
      inputSchema: { type: "object", properties: { command: { type: "string" } }, required: ["command"] }
    },
    run: async (input, signal) => {
      const r = await runShell(String(input["command"] ?? ""), { cwd, timeoutMs: shellTimeoutMs, signal })
      return r.failure === undefined
        ? { state: "completed", output: clip(r.output), exitCode: r.exitCode ?? 0 }
        : { state: "error", output: clip(r.output), error: r.failure }
    }
  }
]
