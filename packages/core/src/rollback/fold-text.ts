/**
 * Text folding for phrase tables (refusals, useless results), so a table row does not depend on
 * one exact spelling: accents, case, quote style, punctuation and whitespace are all folded away.
 *
 * - NFKD, then combining marks removed (é → e, fullwidth → ASCII), then lower case;
 * - quote characters removed, not spaced (I’m → im, can't → cant, qu'IA → quia);
 * - every other run of non-letters/non-digits → one space; a space next to a CJK character is
 *   removed (CJK is written without spaces, so "作为一个 AI" and "作为一个AI" must fold alike);
 * - English contractions made canonical: cannot / can not → cant, i am → im, will not → wont.
 */

import { textHeads } from "../model/text-heads.js"

const QUOTES = /['‘’‚‛′`´ʼ"“”„‟″«»‹›「」『』]/g
/** The CJK ranges of the repetition tokenizer (after NFKD, fullwidth forms are already ASCII). */
const CJK = "\\u3000-\\u30ff\\u3400-\\u4dbf\\u4e00-\\u9fff\\uf900-\\ufaff\\uff00-\\uffef"
const CJK_GAP = new RegExp(`(?<=[${CJK}]) | (?=[${CJK}])`, "g")
const CJK_CHAR = new RegExp(`[${CJK}]`)
const CONTRACTIONS: ReadonlyArray<readonly [RegExp, string]> = [
  [/\bcan ?not\b/g, "cant"],
  [/\bi am\b/g, "im"],
  [/\bwill not\b/g, "wont"],
  [/\bdo not\b/g, "dont"]
]

/** Text folded for phrase matching: accents stripped, lower case, punctuation and spacing normalized. */
export const foldPhraseText = (text: string): string => {
  let s = text.normalize("NFKD").replace(/\p{M}+/gu, "").toLowerCase()
  s = s.replace(QUOTES, "").replace(/[^\p{L}\p{N}]+/gu, " ").replace(CJK_GAP, "").trim()
  for (const [re, to] of CONTRACTIONS) s = s.replace(re, to)
  return s
}

/**
 * `foldPhraseText` of a head of `text`, at least `need` characters once folded, or of all of it
 * (`whole`). The head's fold is the start of the whole text's except for its last few characters:
 * the cut, after whitespace, can change only the contraction its last words take (will | not).
 */
export const foldPhraseHead = (text: string, need: number): { readonly body: string; readonly whole: boolean } => {
  for (const { head, whole } of textHeads(text, 2 * need)) {
    const body = foldPhraseText(head)
    if (whole || body.length >= need) return { body, whole }
  }
  return { body: foldPhraseText(text), whole: true }
}

/** A letter or digit of a space-separated script (a CJK character is a word on its own). */
const isWordChar = (c: string | undefined): boolean => c !== undefined && /[\p{L}\p{N}]/u.test(c) && !CJK_CHAR.test(c)

/**
 * Index of the first whole-word occurrence of `phrase` in `text` (both already folded), or -1.
 * Word boundaries are only required at an end of the phrase that is a Latin-style letter, so
 * "ich kann nicht" does not match "ich kann nichts" while "我无法" matches inside "抱歉我无法".
 */
export const findPhrase = (text: string, phrase: string): number => {
  if (phrase === "") return -1
  const needStart = isWordChar(phrase[0])
  const needEnd = isWordChar(phrase[phrase.length - 1])
  for (let at = text.indexOf(phrase); at !== -1; at = text.indexOf(phrase, at + 1)) {
    const startOk = !needStart || !isWordChar(text[at - 1])
    const endOk = !needEnd || !isWordChar(text[at + phrase.length])
    if (startOk && endOk) return at
  }
  return -1
}
