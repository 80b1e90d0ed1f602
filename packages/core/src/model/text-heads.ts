/**
 * Heads of a long text for folds that are read only at their start. A step's text can be
 * megabytes while a loop key or a refusal test reads its first few hundred characters; folding
 * (case, whitespace, punctuation, accents) is local except across a run with no whitespace, so a
 * head cut just after a whitespace character folds to the start of the whole text's fold.
 */

const WHITESPACE = /\s/g

/**
 * Heads of `text`, each cut just after a whitespace character and about twice as long as the one
 * before (from `first` characters), then the whole text (`whole`): a caller folds them in turn
 * until a fold is long enough.
 */
export function* textHeads(text: string, first: number): Generator<{ readonly head: string; readonly whole: boolean }> {
  let take = Math.max(256, first)
  while (take < text.length) {
    WHITESPACE.lastIndex = take
    const cut = WHITESPACE.exec(text)
    if (cut === null || cut.index + 1 >= text.length) break
    yield { head: text.slice(0, cut.index + 1), whole: false }
    take = Math.max(2 * take, cut.index + 2)
  }
  yield { head: text, whole: true }
}
