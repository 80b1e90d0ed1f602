/** One JSON Lines record, read without throwing: the object, or why it is not one. */
import { parseCutJson, type LineCut } from "../parse.js"
import { isJsonObject, kindOf, type JsonObject } from "../fields.js"

export type JsonLine = { readonly ok: true; readonly value: JsonObject } | { readonly ok: false; readonly why: string }

export const readJsonLine = (raw: string, cut?: LineCut): JsonLine => {
  let value: unknown
  try {
    value = cut === undefined ? JSON.parse(raw) : parseCutJson(raw)
  } catch (e) {
    return { ok: false, why: `bad JSON: ${e instanceof Error ? e.message : String(e)}` }
  }
  return isJsonObject(value) ? { ok: true, value } : { ok: false, why: `expected a JSON object, got ${kindOf(value)}` }
}

/** A string field, or undefined. */
export const str = (o: JsonObject | undefined, key: string): string | undefined => {
  const v = o?.[key]
  return typeof v === "string" ? v : undefined
}

/** A finite number field, or undefined. */
export const num = (o: JsonObject | undefined, key: string): number | undefined => {
  const v = o?.[key]
  return typeof v === "number" && Number.isFinite(v) ? v : undefined
}

/** An object field, or undefined. */
export const obj = (o: JsonObject | undefined, key: string): JsonObject | undefined => {
  const v = o?.[key]
  return isJsonObject(v) ? v : undefined
}

/** An array field, or an empty array. */
export const arr = (o: JsonObject | undefined, key: string): ReadonlyArray<unknown> => {
  const v = o?.[key]
  return Array.isArray(v) ? v : []
}

/** A JSON text's value when it parses to an object, else the text itself (tool arguments). */
export const parseArguments = (text: string): unknown => {
  try {
    const v: unknown = JSON.parse(text)
    return isJsonObject(v) ? v : text
  } catch {
    return text
  }
}

/** Text of whatever a log stores as content: a string, or text blocks (`{text}` items). */
export const textOf = (v: unknown): string => {
  if (typeof v === "string") return v
  if (Array.isArray(v)) return v.map(textOf).filter((s) => s !== "").join("\n")
  if (isJsonObject(v) && typeof v["text"] === "string") return v["text"]
  return ""
}

/** "Exit code N" / "Exit Code: N" at a line start: the status a harness printed, or undefined. */
export const exitCodeIn = (text: string): number | undefined => {
  const m = /^(?:Exit code|Exit Code):? (-?\d+)\s*$/m.exec(text.slice(0, 4000)) ?? /^(?:Exit code|Exit Code):? (-?\d+)\s*$/m.exec(text.slice(-400))
  return m === null ? undefined : Number.parseInt(m[1]!, 10)
}
