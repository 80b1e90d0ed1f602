/**
 * The small real tool set of `loopguard run`: read a file, list a directory, run a shell
 * command with a timeout — all confined to the working directory the user names.
 */
import type { ToolDefinition } from "@loopguard/effect"
import { spawn } from "node:child_process"
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
    run: (input, signal) =>
      new Promise((done) => {
        const command = String(input["command"] ?? "")
        const child = spawn("bash", ["-c", command], { cwd, signal, stdio: ["ignore", "pipe", "pipe"] })
        let out = ""
        const timer = setTimeout(() => child.kill("SIGKILL"), shellTimeoutMs)
        child.stdout.on("data", (d) => (out += d))
        child.stderr.on("data", (d) => (out += d))
        child.on("error", (e) => {
          clearTimeout(timer)
          done({ state: "error", output: clip(out), error: e.message })
        })
        child.on("close", (code, sig) => {
          clearTimeout(timer)
          if (sig !== null) done({ state: "error", output: clip(out), error: `killed by ${sig}` })
          else done({ state: "completed", output: clip(out), exitCode: code ?? 0 })
        })
      })
  }
]
