/**
 * Tool-name patterns for the rollback tables: case-insensitive, `*` matches any run of
 * characters (`*search*` covers google_search, web_search, sogou_search). Nothing else is special.
 */
const cache = new Map<string, RegExp>()

const toRegExp = (pattern: string): RegExp => {
  let re = cache.get(pattern)
  if (re === undefined) {
    const body = pattern
      .split("*")
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
      .join(".*")
    re = new RegExp(`^${body}$`, "is")
    cache.set(pattern, re)
  }
  return re
}

/** Whether a tool name matches a pattern (`*` wildcards). */
export const matchesToolPattern = (pattern: string, tool: string): boolean => toRegExp(pattern).test(tool)

/** Whether a tool name matches any of the patterns. */
export const matchesAnyToolPattern = (patterns: ReadonlyArray<string>, tool: string): boolean =>
  patterns.some((p) => matchesToolPattern(p, tool))
