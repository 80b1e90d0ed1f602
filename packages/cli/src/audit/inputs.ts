/**
 * The files an audit reads: each argument as given, except a folder, which stands for the logs
 * in it and its subfolders (`*.jsonl`, `*.json`, SWE-agent's `*.traj`, OpenCode's `opencode.db` and
 * Kilo's `kilo.db`, sorted by path), as agents keep a session per file in dated folders. Other
 * databases in a folder are not taken for logs (a store's own `sessions.db`, say); named, any
 * database is read as OpenCode's, or reported as not one. Nor are the metadata files an agent keeps
 * beside its logs (Claude Code's `subagents/agent-<id>.meta.json` next to the sub-agent's `.jsonl`).
 */
import { readdirSync, statSync } from "node:fs"
import { join } from "node:path"
import { STDIN_ARG } from "./stdin-trace.js"

export interface AuditInputs {
  readonly files: ReadonlyArray<string>
  /** Whether an argument was a folder (the page output is then a folder too). */
  readonly folder: boolean
  /** The folders named that hold no log (said in a note, not skipped in silence). */
  readonly emptyFolders: ReadonlyArray<string>
}

/** What a folder's logs are, in the words the messages use. */
export const LOG_KINDS = ".jsonl, .json, .traj, opencode.db, kilo.db"

const LOG_FILE = /\.(jsonl|json|traj)$|^(opencode|kilo)\.db$/i
/** A log's metadata, not a log: `<name>.meta.json`. */
const META_FILE = /\.meta\.json$/i

const isLogName = (name: string): boolean => LOG_FILE.test(name) && !META_FILE.test(name)

const logsIn = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((e) => (e.isDirectory() ? logsIn(join(dir, e.name)) : e.isFile() && isLogName(e.name) ? [join(dir, e.name)] : []))

const isDir = (path: string): boolean => {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false
  }
}

export const expandInputs = (args: ReadonlyArray<string>): AuditInputs => {
  let folder = false
  const emptyFolders: Array<string> = []
  const files = args.flatMap((a) => {
    if (a === STDIN_ARG || !isDir(a)) return [a]
    folder = true
    const logs = logsIn(a)
    if (logs.length === 0) emptyFolders.push(a)
    return logs
  })
  return { files, folder, emptyFolders }
}

/** Size of a file in bytes, 0 when it cannot be read (the audit reports that itself). */
export const fileBytes = (path: string): number => {
  try {
    return statSync(path).size
  } catch {
    return 0
  }
}

export { isDir }

/** Whether `file` is a character or block device, which never ends (false when it cannot be stat'ed: reading it says why). */
export const isDevice = (file: string): boolean => {
  try {
    const s = statSync(file)
    return s.isCharacterDevice() || s.isBlockDevice()
  } catch {
    return false
  }
}
