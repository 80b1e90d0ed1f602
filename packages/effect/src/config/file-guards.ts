/**
 * Checks on a config file's text before it is trusted as an object: a leading BOM is dropped
 * (editors on Windows write one), nesting deeper than MAX_CONFIG_DEPTH is refused before any
 * recursive parser sees it, keys that would reach an object's prototype are refused, and so is a
 * key written twice in one object (the parser would keep the last and drop the first silently).
 */
// The package root: Node rejects `jsonc-parser/lib/esm/…` (ESM syntax in a CommonJS package).
import { parseTree, visit, type Node } from "jsonc-parser"

/** Far above the deepest real key (`provider.<id>.retry.<budget>.<field>` is 5 levels). */
export const MAX_CONFIG_DEPTH = 32
export const FORBIDDEN_KEYS: ReadonlyArray<string> = ["__proto__", "constructor", "prototype"]

export const stripBom = (text: string): string => (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text)

/** Offset of the first bracket past `max` levels of nesting, or null; strings and comments are skipped. */
export const tooDeepAt = (text: string, max: number): number | null => {
  let depth = 0
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (c === '"') {
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === "\\") i++
    } else if (c === "/" && text[i + 1] === "/") {
      while (i < text.length && text[i] !== "\n") i++
    } else if (c === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2)
      i = end === -1 ? text.length : end + 1
    } else if (c === "{" || c === "[") {
      depth += 1
      if (depth > max) return i
    } else if (c === "}" || c === "]") depth -= 1
  }
  return null
}

/** Every forbidden key in the file, with its offset and the dotted path to it. */
export const forbiddenKeys = (text: string): Array<{ readonly path: string; readonly offset: number }> => {
  const found: Array<{ path: string; offset: number }> = []
  const walk = (node: Node | undefined, path: ReadonlyArray<string>) => {
    if (node === undefined) return
    if (node.type === "object") {
      for (const property of node.children ?? []) {
        const [key, value] = property.children ?? []
        const name = typeof key?.value === "string" ? key.value : ""
        if (FORBIDDEN_KEYS.includes(name)) found.push({ path: [...path, name].join("."), offset: key!.offset })
        walk(value, [...path, name])
      }
    } else if (node.type === "array") {
      node.children?.forEach((child, i) => walk(child, [...path, String(i)]))
    }
  }
  walk(parseTree(text, [], { allowTrailingComma: true }), [])
  return found
}

/** A key written twice in one object: its dotted path, and where each of the two is written (0-based line and column). */
export interface DuplicateKey {
  readonly path: string
  readonly line: number
  readonly column: number
  readonly firstLine: number
}

/**
 * Every key some object of the file names again (compared as decoded: `"a"` is `"\u0061"`), at its
 * second (third, …) writing. `{"repeat": {…}, "repeat": {…}}` parses to the last section alone: the
 * first one's values would be lost without a word. Read with the parser's own visitor (comments and
 * trailing commas as the loader allows them).
 */
export const duplicateKeys = (text: string): Array<DuplicateKey> => {
  const found: Array<DuplicateKey> = []
  // One map per open object: key → the line it was first written on.
  const open: Array<Map<string, number>> = []
  visit(
    text,
    {
      onObjectBegin: () => void open.push(new Map()),
      onObjectEnd: () => void open.pop(),
      onObjectProperty: (property, _offset, _length, line, column, pathSupplier) => {
        const keys = open.at(-1)
        if (keys === undefined) return
        const first = keys.get(property)
        if (first === undefined) keys.set(property, line)
        else found.push({ path: [...pathSupplier(), property].join("."), line, column, firstLine: first })
      }
    },
    { allowTrailingComma: true }
  )
  return found
}
