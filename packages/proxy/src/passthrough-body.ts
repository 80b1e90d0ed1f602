/**
 * A forwarded answer's body as bytes the proxy can redact: decoded from the content-encoding the
 * upstream used, and the held secrets replaced without touching any other byte (the body may be
 * JSON, text or a file).
 */
import { makeRedactor } from "@loopguard/core/try-best"
import { brotliDecompressSync, gunzipSync, inflateSync } from "node:zlib"

/** `body` without its content-encoding; null for an encoding the proxy cannot read. */
export const plainBody = (body: Buffer, encoding: string | undefined): Buffer | null => {
  const name = (encoding ?? "identity").trim().toLowerCase()
  try {
    if (name === "identity" || name === "") return body
    if (name === "gzip" || name === "x-gzip") return gunzipSync(body)
    if (name === "deflate") return inflateSync(body)
    if (name === "br") return brotliDecompressSync(body)
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
