/**
 * The small real tool set of `loopguard run`: read a file, list a directory, run a shell
 * command with a timeout. The file tools are confined to the working directory (symlinks
 * resolved). The shell is NOT a sandbox: it runs with the user's rights, in the working
 * directory, with a scrubbed environment, optionally only after the user approves each command.
 */
import { type ToolDefinition, type ToolResult, type ToolRunContext } from "@loopguard/effect"
import { DEFAULT_ENV_DENY, DEFAULT_MAX_OUTPUT_CHARS, makeCappedOutput, runShell, scrubEnv } from "@loopguard/effect/tools"
import { opendir } from "node:fs/promises"
import type { Dirent } from "node:fs"
import type { ApproveCommand } from "./tools/approve.js"
import { readBounded } from "./tools/bounded-read.js"
import { confine } from "./tools/confine.js"

export interface BuiltinToolOptions {
  /** Characters of output a tool returns (tools.maxOutputChars). */
  readonly maxOutputChars?: number
  /** Names removed from the shell's environment besides LOOPGUARD_* (tools.envDeny). */
  readonly envDeny?: ReadonlyArray<string>
  /** When not empty, only these names reach the shell (tools.envAllow). */
  readonly envAllow?: ReadonlyArray<string>
  /** Credential-looking names that do reach the shell (tools.envPass). */
  readonly envPass?: ReadonlyArray<string>
  /** Variables that hold secrets of this run (the API key's variable): always removed. */
  readonly secretEnvNames?: ReadonlyArray<string>
  /** When set, asked before each shell command; false means the command is not run. */
  readonly approve?: ApproveCommand
  readonly env?: Readonly<Record<string, string | undefined>>
}

/** A definition run outside `Tools` (a test calling `run` itself) is given no redactor. */
const NO_REDACTOR: ToolRunContext = { redact: (text) => text }

const clip = (text: string, max: number, redact: (text: string) => string): string => {
  const out = makeCappedOutput(max, redact)
  out.push(text)
  return out.text()
}

/** A directory with millions of entries is not read whole. */
export const MAX_LISTED_ENTRIES = 2_000

const listBounded = async (dir: string, limit: number): Promise<{ readonly entries: ReadonlyArray<Dirent>; readonly more: boolean }> => {
  const handle = await opendir(dir)
  const entries: Array<Dirent> = []
  try {
    for (let e = await handle.read(); e !== null; e = await handle.read()) {
      if (entries.length === limit) return { entries, more: true }
      entries.push(e)
    }
    return { entries, more: false }
  } finally {
    await handle.close().catch(() => {})
  }
}

const readFileTool = (cwd: string, max: number): ToolDefinition => ({
  spec: {
    name: "read_file",
    description: `Read a text file (path relative to the working directory; at most ${max} characters are returned).`,
    inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] }
  },
  run: async (input, _signal, { redact } = NO_REDACTOR) => {
    // UTF-8 needs at most 4 bytes a character: this many bytes always fill the character cap.
    const file = await readBounded(await confine(cwd, input["path"]), max * 4)
    // Redacted before the cut, so a key at the cut is not half shown.
    const whole = redact(file.text)
    const text = whole.length > max ? whole.slice(0, max) : whole
    const cut = file.truncated || text.length < whole.length
    return { state: "completed", output: cut ? `${text}\n…[file is ${file.size} bytes; only the beginning is shown]` : text }
  }
})

const listDirTool = (cwd: string, max: number): ToolDefinition => ({
  spec: {
    name: "list_dir",
    description: "List the entries of a directory (path relative to the working directory).",
    inputSchema: { type: "object", properties: { path: { type: "string" } } }
  },
  run: async (input, _signal, { redact } = NO_REDACTOR) => {
    const listing = await listBounded(await confine(cwd, input["path"]), MAX_LISTED_ENTRIES)
    const names = listing.entries.map((e) => (e.isDirectory() ? `${e.name}/` : e.isSymbolicLink() ? `${e.name}@` : e.name)).sort()
    const more = listing.more ? `\n…[more than ${MAX_LISTED_ENTRIES} entries; only the first ${MAX_LISTED_ENTRIES} read are shown]` : ""
    return { state: "completed", output: clip(names.join("\n"), max, redact) + more }
  }
})

const commandOf = (input: Record<string, unknown>): string => (typeof input["command"] === "string" ? input["command"].trim() : "")

const bashTool = (cwd: string, timeoutMs: number, options: BuiltinToolOptions, max: number): ToolDefinition => {
  const approve = options.approve
  // The environment as it was when the tool was made, scrubbed at the first command: a run that
  // never calls bash does not pay for matching every variable's name against the deny list.
  const source = { ...(options.env ?? process.env) }
  let scrubbed: Record<string, string> | undefined
  const env = () =>
    (scrubbed ??= scrubEnv(source, { secretNames: options.secretEnvNames ?? [], deny: options.envDeny ?? DEFAULT_ENV_DENY, allow: options.envAllow ?? [], pass: options.envPass ?? [] }))
  return {
    spec: {
      name: "bash",
      description: `Run a shell command in the working directory (timeout ${Math.round(timeoutMs / 1000)} s). Returns stdout, stderr and the exit code.`,
      inputSchema: { type: "object", properties: { command: { type: "string" } }, required: ["command"] }
    },
    stopsAtTimeout: true,
    ...(approve !== undefined ? { authorize: async (input: Record<string, unknown>) => (commandOf(input) === "" ? { allowed: true as const } : approve(commandOf(input))) } : {}),
    run: async (input, signal, { redact } = NO_REDACTOR): Promise<ToolResult> => {
      const command = commandOf(input)
      if (command === "") return { state: "error", output: "", error: "no command given: pass the shell command as `command` (a string)" }
      const r = await runShell(command, { cwd, timeoutMs, signal, env: env(), maxOutputChars: max, redact })
      return r.failure === undefined
        ? { state: "completed", output: r.output, exitCode: r.exitCode ?? 0 }
        : { state: "error", output: r.output, error: r.failure }
    }
  }
}

export const builtinTools = (cwd: string, shellTimeoutMs: number, options: BuiltinToolOptions = {}): ReadonlyArray<ToolDefinition> => {
  const max = options.maxOutputChars ?? DEFAULT_MAX_OUTPUT_CHARS
  return [readFileTool(cwd, max), listDirTool(cwd, max), bashTool(cwd, shellTimeoutMs, options, max)]
}
