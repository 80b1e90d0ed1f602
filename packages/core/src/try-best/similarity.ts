/** Word shingles and Jaccard similarity: how alike two normalized edits are. */

/**
 * The set of `size`-word shingles of a text (words split on whitespace). A text with fewer
 * words than `size` is one shingle of all its words, so tiny edits still compare (by equality).
 */
export const shingles = (text: string, size = 3): ReadonlyArray<string> => {
  const words = text.split(/\s+/).filter((w) => w.length > 0)
  if (words.length === 0) return []
  if (words.length < size) return [words.join(" ")]
  const set = new Set<string>()
  for (let i = 0; i + size <= words.length; i++) set.add(words.slice(i, i + size).join(" "))
  return [...set]
}

/** |A ∩ B| / |A ∪ B|; two empty sets are not similar (0). */
export const jaccard = (a: ReadonlyArray<string>, b: ReadonlyArray<string>): number => {
  const left = new Set(a)
  const right = new Set(b)
  let shared = 0
  for (const s of left) if (right.has(s)) shared++
  const union = left.size + right.size - shared
  return union === 0 ? 0 : shared / union
}
