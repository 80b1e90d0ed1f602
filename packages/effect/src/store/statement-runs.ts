/**
 * Values bound into one SQL statement come in runs: SQLite builds limit a statement's parameters
 * (999 in older ones), so a list of any length is written or matched 200 values (or rows) at a time.
 */

/** `items` in runs of at most `size` (200 by default), none empty. */
export const statementRuns = <A>(items: ReadonlyArray<A>, size = 200): Array<ReadonlyArray<A>> => {
  const out: Array<ReadonlyArray<A>> = []
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size))
  return out
}
