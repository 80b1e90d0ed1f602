/**
 * How long the server asked us to wait. Headers first (`retry-after-ms`, then `retry-after` as
 * seconds or an HTTP date), then text such as "Please try again in 1m30s". The text is parsed
 * strictly: a retry phrase followed by number+unit pairs; a bare number, a range or words are
 * ignored rather than guessed at.
 */
import type { NormalizedError } from "../model/stream.js"

/** A hint read from error text is capped here (docs/retry.md); header hints are capped by the budget. */
export const MAX_TEXT_HINT_MS = 5 * 60_000

const DECIMAL = /^\d+(?:\.\d+)?$/

/** The server's wait hint in ms (`retry-after-ms`, `retry-after`, then the error's text), or undefined. */
export const serverHintMs = (error: NormalizedError, now: number = Date.now()): number | undefined => {
  const headers = error.headers ?? {}
  const ms = headers["retry-after-ms"]?.trim()
  if (ms !== undefined && DECIMAL.test(ms)) return Math.round(Number(ms))

  const after = headers["retry-after"]?.trim()
  if (after !== undefined && after.length > 0) {
    if (DECIMAL.test(after)) return Math.round(Number(after) * 1000)
    const at = parseHttpDate(after)
    if (at !== undefined) return Math.max(0, at - now)
  }

  for (const text of [error.message, error.body]) {
    if (text === undefined) continue
    const parsed = parseRetryText(text)
    if (parsed !== undefined) return Math.min(parsed, MAX_TEXT_HINT_MS)
  }
  return undefined
}

/** IMF-fixdate and the two obsolete HTTP date forms all name a weekday or month and a year. */
const parseHttpDate = (value: string): number | undefined => {
  if (!/[a-z]{3}/i.test(value) || !/\d{4}/.test(value)) return undefined
  const t = Date.parse(value)
  return Number.isFinite(t) ? t : undefined
}

const UNIT_MS: ReadonlyArray<readonly [RegExp, number, number]> = [
  // [unit pattern, milliseconds per unit, rank: units must strictly descend in a compound]
  [/^(?:h|hr|hrs|hour|hours)$/, 3_600_000, 3],
  [/^(?:m|min|mins|minute|minutes)$/, 60_000, 2],
  [/^(?:s|sec|secs|second|seconds)$/, 1_000, 1],
  [/^(?:ms|millis|millisecond|milliseconds)$/, 1, 0]
]

const ANCHOR = /\b(?:try(?:ing)?\s+again|retry(?:ing)?|wait)\s+(?:in|after)\s+/gi
const PART = /(\d+(?:\.\d+)?)\s?([a-z]+)/iy

/**
 * "try again in 30s", "retry after 1.5 seconds", "try again in 2m", "try again in 1m30.5s",
 * "retrying in 1 minute 30 seconds", "try again in 250ms". Returns milliseconds or undefined.
 */
export const parseRetryText = (text: string): number | undefined => {
  ANCHOR.lastIndex = 0
  for (let anchor = ANCHOR.exec(text); anchor !== null; anchor = ANCHOR.exec(text)) {
    const parsed = parseDuration(text, anchor.index + anchor[0].length)
    if (parsed !== undefined) return parsed
  }
  return undefined
}

const parseDuration = (text: string, start: number): number | undefined => {
  let pos = start
  let total = 0
  let lastRank = Number.POSITIVE_INFINITY
  let parts = 0
  for (;;) {
    PART.lastIndex = pos
    const m = PART.exec(text)
    if (m === null) break
    const unit = UNIT_MS.find(([re]) => re.test(m[2]!.toLowerCase()))
    if (unit === undefined) return undefined // "in 30 or so", "in 5 business days": not ours to guess
    const [, perUnit, rank] = unit
    if (rank >= lastRank) return undefined // "1s 2m": not a duration we understand
    lastRank = rank
    total += Number(m[1]) * perUnit
    parts += 1
    pos = PART.lastIndex
    // A compound continues only straight after, or after one space ("1 minute 30 seconds").
    if (text[pos] === " " && /\d/.test(text[pos + 1] ?? "")) pos += 1
  }
  if (parts === 0) return undefined
  // What follows must end the duration: "in 30s-ish" or "in 2.5.1s" is ambiguous.
  const next = text[pos] ?? ""
  if (next !== "" && !/[\s.,;:!?)\]"']/.test(next)) return undefined
  if (next === "." && /\d/.test(text[pos + 1] ?? "")) return undefined
  return Number.isFinite(total) ? Math.round(total) : undefined
}
