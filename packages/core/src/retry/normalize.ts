/**
 * Turn whatever a provider call throws or streams into a NormalizedError. Duck-typed (core cannot
 * import `ai`): AI SDK `APICallError`, provider stream errors, `{type:"error", error}` parts,
 * Node/Bun/undici errors with `code` and `cause` chains, AbortError, strings, anything.
 * Never throws: a value that defeats every reader still yields a message.
 */
import type { ErrorPhase, NormalizedError } from "../model/stream.js"

/** How far the `cause` chain is followed. */
export const MAX_CAUSE_DEPTH = 8
/** Response bodies are kept up to this many characters (they travel in events and reports). */
export const MAX_BODY_CHARS = 16_000

const UNKNOWN_MESSAGE = "Unknown error"

type Rec = Record<string, unknown>

const isRecord = (u: unknown): u is Rec => u !== null && typeof u === "object"
const str = (u: unknown): string | undefined => (typeof u === "string" && u.length > 0 ? u : undefined)
const rec = (u: unknown): Rec | undefined => (isRecord(u) ? u : undefined)

/** Any thrown or reported error as a `NormalizedError` (status, headers, code, message, phase); never throws. */
export const normalizeError = (input: unknown): NormalizedError => {
  try {
    return fromUnknown(input, 0)
  } catch {
    return { message: safeString(input) }
  }
}

const safeString = (u: unknown): string => {
  try {
    const s = String(u)
    return s.length > 0 ? s : UNKNOWN_MESSAGE
  } catch {
    return UNKNOWN_MESSAGE
  }
}

const fromUnknown = (input: unknown, depth: number): NormalizedError => {
  if (input === null || input === undefined) return { message: UNKNOWN_MESSAGE }
  if (typeof input === "string") return { message: input.length > 0 ? input : UNKNOWN_MESSAGE }
  if (!isRecord(input)) return { message: safeString(input) }

  // An AI SDK stream part `{ type: "error", error }`, or a wrapper `{ error }` with no message of
  // its own: the interesting object is inside.
  const inner = input["error"]
  if (depth < 2 && isRecord(inner) && str(input["message"]) === undefined && inner !== input) {
    if (input["type"] === "error" || input["statusCode"] === undefined) return fromUnknown(inner, depth + 1)
  }
  if (depth < 2 && typeof inner === "string" && input["type"] === "error" && str(input["message"]) === undefined) {
    return { message: inner }
  }

  const name = str(input["name"])
  const data = rec(input["data"])
  const body = bodyOf(input)
  const parsedBody = parseJsonObject(body)
  const bodyError = rec(data?.["error"]) ?? rec(parsedBody?.["error"])
  const status = statusOf(input)
  const headers = headersOf(input["responseHeaders"] ?? input["headers"])
  const code = codeOf(input, data, bodyError, parsedBody)
  const walked = walkCauses(input["cause"], stringsOf(input["causes"]))
  // The body's own words: `{ error: { message } }`, or vLLM's and Mistral's `{ object: "error", message }`.
  const bodyMessage = str(bodyError?.["message"]) ?? (parsedBody?.["object"] === "error" ? str(parsedBody["message"]) : undefined)
  // A message that is only the status's phrase ("Bad Request": the SDK did not know the body's shape) says less than the body.
  const own = str(input["message"])
  const message = (own !== undefined && STATUS_PHRASE.test(own) ? bodyMessage : undefined) ?? own ?? bodyMessage ?? str(data?.["message"]) ?? name ?? UNKNOWN_MESSAGE
  const aborted = input["aborted"] === true || isAbortName(name) || input["code"] === "ABORT_ERR" || walked.aborted
  const phase = input["phase"] === "request" || input["phase"] === "stream" ? (input["phase"] as ErrorPhase) : undefined

  return {
    message,
    ...(name !== undefined ? { name } : {}),
    ...(status !== undefined ? { status } : {}),
    ...(headers !== undefined ? { headers } : {}),
    ...(code !== undefined ? { code } : {}),
    ...(body !== undefined ? { body } : {}),
    ...(typeof input["isRetryable"] === "boolean" ? { isRetryable: input["isRetryable"] } : {}),
    ...(phase !== undefined ? { phase } : {}),
    ...(walked.messages.length > 0 ? { causes: walked.messages } : {}),
    ...(aborted ? { aborted: true } : {})
  }
}

/** An HTTP status's reason phrase, all a message says when an SDK could not read the error body. */
const STATUS_PHRASE = /^(?:bad request|unauthorized|payment required|forbidden|not found|request timeout|conflict|payload too large|unprocessable entity|too many requests|internal server error|bad gateway|service unavailable|gateway timeout)$/i

const isAbortName = (name: string | undefined): boolean => name === "AbortError" || name === "ResponseAborted"

const statusOf = (o: Rec): number | undefined => {
  for (const candidate of [o["statusCode"], o["status"]]) {
    const n = typeof candidate === "string" && /^\d{3}$/.test(candidate) ? Number(candidate) : candidate
    if (typeof n === "number" && Number.isInteger(n) && n >= 100 && n <= 599) return n
  }
  return undefined
}

const headersOf = (h: unknown): Readonly<Record<string, string>> | undefined => {
  if (!isRecord(h)) return undefined
  const out: Record<string, string> = {}
  const put = (v: unknown, k: unknown) => {
    if (typeof k === "string" && (typeof v === "string" || typeof v === "number")) out[k.toLowerCase()] = String(v)
  }
  // A fetch `Headers` (or anything like it) iterates with forEach(value, key).
  if (typeof h["forEach"] === "function" && typeof h["get"] === "function") {
    ;(h["forEach"] as (cb: (v: unknown, k: unknown) => void) => void).call(h, put)
  } else {
    for (const [k, v] of Object.entries(h)) put(v, k)
  }
  return Object.keys(out).length > 0 ? out : undefined
}

const bodyOf = (o: Rec): string | undefined => {
  const raw = o["responseBody"] ?? o["body"]
  const text = typeof raw === "string" ? raw : undefined
  if (text === undefined || text.length === 0) return undefined
  return text.length > MAX_BODY_CHARS ? text.slice(0, MAX_BODY_CHARS) : text
}

const parseJsonObject = (text: string | undefined): Rec | undefined => {
  if (text === undefined || !text.trimStart().startsWith("{")) return undefined
  try {
    return rec(JSON.parse(text))
  } catch {
    return undefined
  }
}

/** A generic "error" type says nothing; a numeric code (Google's 429) is already the status. */
const codeString = (u: unknown): string | undefined => {
  const s = str(u)
  return s !== undefined && s.toLowerCase() !== "error" ? s : undefined
}

const codeOf = (o: Rec, data: Rec | undefined, bodyError: Rec | undefined, body: Rec | undefined): string | undefined =>
  codeString(o["code"]) ??
  codeString(bodyError?.["code"]) ??
  codeString(bodyError?.["type"]) ??
  codeString(bodyError?.["status"]) ??
  codeString(data?.["code"]) ??
  codeString(data?.["type"]) ??
  codeString(body?.["code"]) ??
  codeString(body?.["type"]) ??
  codeString(o["type"])

interface WalkedCauses {
  readonly messages: ReadonlyArray<string>
  readonly aborted: boolean
}

/** An already-normalized error keeps its causes (normalizing twice changes nothing). */
const stringsOf = (u: unknown): ReadonlyArray<string> =>
  Array.isArray(u) ? u.filter((x): x is string => typeof x === "string" && x.length > 0) : []

/** Messages and codes of the cause chain, outermost first, without repeats. */
const walkCauses = (start: unknown, known: ReadonlyArray<string>): WalkedCauses => {
  const messages: Array<string> = [...known]
  const seen = new Set<unknown>()
  let aborted = false
  let current = start
  for (let depth = 0; depth < MAX_CAUSE_DEPTH && current !== undefined && current !== null; depth++) {
    if (seen.has(current)) break
    seen.add(current)
    const add = (s: string | undefined) => {
      if (s !== undefined && !messages.includes(s)) messages.push(s)
    }
    if (typeof current === "string") {
      add(str(current))
      break
    }
    if (!isRecord(current)) {
      add(safeString(current))
      break
    }
    add(str(current["message"]))
    add(str(current["code"]))
    if (isAbortName(str(current["name"]))) aborted = true
    current = current["cause"]
  }
  return { messages, aborted }
}
