/**
 * The files an audit reads: each argument as given, except a folder, which stands for the logs
 * in it and its subfolders (`*.jsonl`, `*.json`, SWE-agent's `*.traj`, OpenCode's `opencode.db` and
 * Kilo's `kilo.db`, sorted by path), as agents keep a session per file in dated folders. Other
 * databases in a folder are not taken for logs (a store's own `sessions.db`, say); named, any
 * database is read as OpenCode's, or reported as not one. Nor are the metadata files an agent keeps
 * beside its logs (Claude Code's `subagents/agent-<id>.meta.json` next to the sub-agent's `.jsonl`).
 */
import { readdirSync, realpathSync, statSync } from "node:fs"
import { join } from "node:path"
import { STDIN_ARG } from "./stdin-trace.js"

export interface AuditInputs {
  readonly files: ReadonlyArray<string>
  /** Whether an argument was a folder (the page output is then a folder too). */
  readonly folder: boolean
  /** The folders named that hold no log (said in a note, not skipped in silence). */
  readonly emptyFolders: ReadonlyArray<string>
  /** Log names in a folder that are no file to read (a pipe, a broken link), with why: said in a note. */
  readonly skipped: ReadonlyArray<{ readonly path: string; readonly why: string }>
}

/** What a folder's logs are, in the words the messages use. */
export const LOG_KINDS = ".jsonl, .json, .traj, opencode.db, kilo.db"

const LOG_FILE = /\.(jsonl|json|traj)$|^(opencode|kilo)\.db$/i
/** A log's metadata, not a log: `<name>.meta.json`. */
const META_FILE = /\.meta\.json$/i

const isLogName = (name: string): boolean => LOG_FILE.test(name) && !META_FILE.test(name)

/** What a folder walk found: the logs, and the log names that are no file to read. */
interface FolderLogs {
  readonly files: Array<string>
  readonly skipped: Array<{ readonly path: string; readonly why: string }>
}

/** What a path inside a folder is once its links are followed: null when it cannot be stat'ed (a broken link). */
const kindOf = (path: string): "file" | "dir" | "other" | null => {
  try {
    const s = statSync(path)
    return s.isDirectory() ? "dir" : s.isFile() ? "file" : "other"
  } catch {
    return null
  }
}

/** The real paths a walk has been to: folders walked, and logs found. */
interface Walked {
  readonly folders: Set<string>
  readonly logs: Set<string>
}

/** A log found, once: a link to a log already found (a `latest.jsonl`) is the same log. */
const addFile = (found: FolderLogs, path: string, walked: Walked): void => {
  let real: string
  try {
    real = realpathSync(path)
  } catch {
    // Gone since it was listed: reading it says so.
    found.files.push(path)
    return
  }
  if (walked.logs.has(real)) return
  walked.logs.add(real)
  found.files.push(path)
}

/**
 * The logs in `dir` and its subfolders, links followed (each real folder walked once, so a link
 * back up ends). A subfolder that cannot be listed is handed on as a log of its own: reading it
 * fails with the reason, as an unreadable file does, and the other logs are still audited.
 */
const logsIn = (dir: string, found: FolderLogs = { files: [], skipped: [] }, walked: Walked = { folders: new Set(), logs: new Set() }): FolderLogs => {
  let real: string
  let entries: Array<string>
  try {
    real = realpathSync(dir)
    entries = readdirSync(dir).sort((a, b) => a.localeCompare(b))
  } catch {
    found.files.push(dir)
    return found
  }
  if (walked.folders.has(real)) return found
  walked.folders.add(real)
  for (const name of entries) {
    const path = join(dir, name)
    const kind = kindOf(path)
    if (kind === "dir") logsIn(path, found, walked)
    else if (!isLogName(name)) continue
    else if (kind === "file") addFile(found, path, walked)
    else found.skipped.push({ path, why: kind === null ? "a link to nothing" : "not a regular file (a pipe, a socket or a device)" })
  }
  return found
}

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
  const skipped: Array<{ path: string; why: string }> = []
  const files = args.flatMap((a) => {
    if (a === STDIN_ARG || !isDir(a)) return [a]
    folder = true
    const logs = logsIn(a)
    skipped.push(...logs.skipped)
    if (logs.files.length === 0 && logs.skipped.length === 0) emptyFolders.push(a)
    return logs.files
  })
  return { files, folder, emptyFolders, skipped }
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
