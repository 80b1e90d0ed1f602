/**
 * An upstream answer's body as bytes the proxy can read and redact (forwarded answers, whole guarded
 * replies, error bodies): the content coding it came in, decoded, and the held secrets replaced
 * without touching any other byte (the body may be JSON, text or a file).
 */
import { makeRedactor } from "@loopguard/core/try-best"
import { brotliDecompressSync, gunzipSync, inflateSync } from "node:zlib"

/** The content codings the proxy reads, by the name a `content-encoding` header gives them. */
export type ContentCoding = "identity" | "gzip" | "deflate" | "br"

/** The coding `encoding` names; null for one the proxy cannot read. */
export const contentCodingOf = (encoding: string | undefined): ContentCoding | null => {
  const name = (encoding ?? "").trim().toLowerCase()
  if (name === "" || name === "identity") return "identity"
  if (name === "gzip" || name === "x-gzip") return "gzip"
  return name === "deflate" || name === "br" ? name : null
}

/**
 * `body` without its content-encoding; null for an encoding the proxy cannot read (or a body that
 * does not decode, or decodes past `maxBytes`).
 */
export const plainBody = (body: Buffer, encoding: string | undefined, maxBytes?: number): Buffer | null => {
  const coding = contentCodingOf(encoding)
  const options = maxBytes === undefined ? {} : { maxOutputLength: maxBytes }
  try {
    if (coding === "identity") return body
    if (coding === "gzip") return gunzipSync(body, options)
    if (coding === "deflate") return inflateSync(body, options)
    if (coding === "br") return brotliDecompressSync(body, options)
  } catch {
    return null
  }
  return null
}

/**
 * `body` with every `secrets` value replaced by [REDACTED]. Matched on the bytes (as latin1, one
 * character a byte), so a body that is not UTF-8 comes back byte for byte where no secret was.
 */
export const redactBytes = (body: Buffer, secrets: ReadonlyArray<string>): Buffer => {
  if (secrets.length === 0) return body
  const redact = makeRedactor(secrets.map((s) => Buffer.from(s, "utf8").toString("latin1")), { authorization: false })
  const text = body.toString("latin1")
  const out = redact(text)
  return out === text ? body : Buffer.from(out, "latin1")
}
