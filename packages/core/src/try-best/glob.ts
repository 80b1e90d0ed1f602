/**
 * A minimal glob matcher for required-artefact lists: `*` (any characters but `/`), `?` (one
 * character but `/`), `**` (any number of path segments, including none). Everything else is
 * literal; there are no character classes or braces. A glob matches the whole relative path.
 */
import { normalizePath } from "./normalize.js"

const SPECIAL = /[.+^${}()|[\]\\]/g

/** Whether a glob has a wildcard. */
export const hasWildcard = (glob: string): boolean => /[*?]/.test(glob)

/** A glob (`*`, `**`, `?`) as an anchored regular expression. */
export const globToRegExp = (glob: string): RegExp => {
  const g = normalizePath(glob)
  let out = ""
  for (let i = 0; i < g.length; i++) {
    const c = g[i]!
    if (c === "*" && g[i + 1] === "*") {
      const atStart = i === 0 || g[i - 1] === "/"
      const slashAfter = g[i + 2] === "/"
      if (atStart && slashAfter) {
        out += "(?:[^/]+/)*" // "**/": zero or more whole directories
        i += 2
      } else if (atStart && i + 2 === g.length) {
        out += ".*" // trailing "/**": everything below
        i += 1
      } else {
        out += "[^/]*" // "**" inside a segment acts like "*"
        i += 1
      }
    } else if (c === "*") out += "[^/]*"
    else if (c === "?") out += "[^/]"
    else out += c.replace(SPECIAL, "\\$&")
  }
  return new RegExp(`^${out}$`)
}

/** Whether a path matches a glob. */
export const matchGlob = (glob: string, path: string): boolean => globToRegExp(glob).test(normalizePath(path))
