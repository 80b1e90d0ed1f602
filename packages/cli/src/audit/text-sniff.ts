/**
 * Whether a file can be a JSON Lines log at all, told from its first bytes: a gzip archive, UTF-16
 * text or binary data read line by line gave one "bad JSON" per line (154 for a gzip trace), when
 * one line saying what the file is tells the person what to do.
 */
import { closeSync, openSync, readSync } from "node:fs"

const SNIFF_BYTES = 4096

const head = (file: string): Buffer | null => {
  try {
    const fd = openSync(file, "r")
    try {
      const bytes = Buffer.alloc(SNIFF_BYTES)
      return bytes.subarray(0, readSync(fd, bytes, 0, SNIFF_BYTES, 0))
    } finally {
      closeSync(fd)
    }
  } catch {
    // Unreadable: the audit says why when it reads the file.
    return null
  }
}

/** What `file` is when it is no text a log can be (with what to do about it); null when it may be one. */
export const notTextKind = (file: string): string | null => {
  const b = head(file)
  if (b === null) return null
  if (b[0] === 0x1f && b[1] === 0x8b) return `a gzip archive (unpack it first: zcat ${file} > run.jsonl, or audit <(zcat ${file}))`
  if ((b[0] === 0xff && b[1] === 0xfe) || (b[0] === 0xfe && b[1] === 0xff)) return `UTF-16 text (convert it to UTF-8 first: iconv -f UTF-16 -t UTF-8 ${file} > run.jsonl)`
  if (b.includes(0)) return "binary data (it holds NUL bytes)"
  return null
}
