/**
 * A config file's text, read only when it is a regular file of a config's size. A FIFO named as the
 * config (or planted as `./loopguard.json`) blocked every command on its open, past SIGTERM; a link to
 * `/dev/zero` read until the process ran out of memory. The file is opened without waiting for a
 * writer and checked on its descriptor, so what is checked is what is read.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs"

/** Far above any real config (the documented keys, every route and price written out, fit in a few KB). */
export const MAX_CONFIG_FILE_BYTES = 1024 * 1024

/** The file's text; throws an Error whose message says what the path is when it is no config file. */
export const readConfigFileText = (path: string): string => {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK)
  try {
    const stat = fstatSync(fd)
    if (stat.isDirectory()) throw new Error("is a directory, not a file")
    if (!stat.isFile()) throw new Error("is not a regular file (a pipe, socket or device); a config must be a file")
    if (stat.size > MAX_CONFIG_FILE_BYTES) throw new Error(`is ${stat.size} bytes; a config file may hold at most ${MAX_CONFIG_FILE_BYTES}`)
    const bytes = Buffer.alloc(stat.size)
    let read = 0
    while (read < bytes.length) {
      const n = readSync(fd, bytes, read, bytes.length - read, null)
      if (n === 0) break
      read += n
    }
    return bytes.subarray(0, read).toString("utf8")
  } finally {
    closeSync(fd)
  }
}
