/**
 * Reading a file for the model without trusting it: only regular files are read (a FIFO would
 * block forever, `/dev/zero` never ends, a socket is not a file), and never more than the cap,
 * whatever size the file claims (a 1 GB sparse file costs one small read).
 */
import { constants } from "node:fs"
import { open, type FileHandle } from "node:fs/promises"

export class NotAFile extends Error {}

const kindOf = (s: { isFIFO(): boolean; isCharacterDevice(): boolean; isBlockDevice(): boolean; isSocket(): boolean; isDirectory(): boolean }): string =>
  s.isFIFO() ? "a FIFO (named pipe)" : s.isCharacterDevice() || s.isBlockDevice() ? "a device" : s.isSocket() ? "a socket" : s.isDirectory() ? "a directory" : "not a regular file"

/** Opens without blocking (a FIFO with no writer) and without following a last-moment symlink. */
const openForRead = async (path: string): Promise<FileHandle> => {
  try {
    return await open(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW)
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    if (code === "ENXIO") throw new NotAFile(`${path} is a socket: refused, only regular files are read`)
    if (code === "ELOOP") throw new NotAFile(`${path} is a symbolic link that changed while it was checked: refused`)
    throw e
  }
}

export interface BoundedText {
  readonly text: string
  /** Bytes in the file; more than were read when `truncated`. */
  readonly size: number
  readonly truncated: boolean
}

export const readBounded = async (path: string, maxBytes: number): Promise<BoundedText> => {
  const handle = await openForRead(path)
  try {
    const info = await handle.stat()
    if (!info.isFile()) throw new NotAFile(`${path} is ${kindOf(info)}: refused, only regular files are read`)
    const buffer = Buffer.alloc(Math.min(maxBytes, Math.max(info.size, 0)))
    let filled = 0
    while (filled < buffer.length) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled)
      if (bytesRead === 0) break
      filled += bytesRead
    }
    return { text: buffer.subarray(0, filled).toString("utf8"), size: info.size, truncated: info.size > filled }
  } finally {
    await handle.close()
  }
}
