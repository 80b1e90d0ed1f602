/**
 * Files the CLI writes for a person (`audit --html`, `sessions show --html`, `sessions export --out`,
 * chat's `/export`). They hold whole conversations, so a new one is its owner's only (0600), and a
 * symbolic link at the path is refused: a link planted there (in a shared folder, by a tool the
 * model ran) would have loopguard overwrite whatever it points to. A file that already exists is
 * overwritten in place and keeps its own mode, unless it is one of the command's inputs (`audit
 * LOG --html LOG` would replace the only copy of a log with its page): `inputAt` finds that.
 */
import { closeSync, constants, lstatSync, openSync, statSync, writeSync } from "node:fs"

/** Why an output file was not written; the message names the path and is fit for a person. */
export class OutputFileError extends Error {
  override readonly name = "OutputFileError"
}

const symlinkRefusal = (path: string) => new OutputFileError(`${path} is a symbolic link; loopguard does not write through one (remove it or choose another path)`)

/** Whether `path` is a symbolic link now (false: absent or anything else). */
const isSymlink = (path: string): boolean => {
  try {
    return lstatSync(path).isSymbolicLink()
  } catch {
    return false
  }
}

// O_NOFOLLOW closes the race between the check and the open where the platform has it (Linux, macOS).
const FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | (constants.O_NOFOLLOW ?? 0)

/** Writes `text` to `path` (see above); throws `OutputFileError` for a link, the system's error otherwise. */
export const writeOutputFile = (path: string, text: string): void => {
  if (isSymlink(path)) throw symlinkRefusal(path)
  let fd: number
  try {
    fd = openSync(path, FLAGS, 0o600)
  } catch (e) {
    // ELOOP: a link was put there after the check.
    if ((e as NodeJS.ErrnoException).code === "ELOOP") throw symlinkRefusal(path)
    throw e
  }
  try {
    const bytes = Buffer.from(text, "utf8")
    for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at)
  } finally {
    closeSync(fd)
  }
}

/** The file's identity (device and inode), whatever path names it; null when there is none to stat. */
const identity = (path: string): string | null => {
  try {
    const s = statSync(path)
    return `${s.dev}:${s.ino}`
  } catch {
    return null
  }
}

/**
 * The input that `out` would overwrite: the same file by another spelling too (`./x`, an absolute
 * path, a link, a hard link). Undefined when `out` is none of them (or does not exist yet).
 */
export const inputAt = (out: string, inputs: ReadonlyArray<string>): string | undefined => {
  const target = identity(out)
  return target === null ? undefined : inputs.find((i) => identity(i) === target)
}
