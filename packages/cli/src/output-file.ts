/**
 * Files the CLI writes for a person (`audit --html`, `sessions show --html`, `sessions export --out`,
 * chat's `/export`). They hold whole conversations, so a new one is its owner's only (0600), and a
 * symbolic link at the path is refused: a link planted there (in a shared folder, by a tool the
 * model ran) would have loopguard overwrite whatever it points to. A file that already exists is
 * overwritten in place and keeps its own mode.
 */
import { closeSync, constants, lstatSync, openSync, writeSync } from "node:fs"

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
