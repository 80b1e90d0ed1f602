/**
 * A token estimate good enough to decide when to compact, without a tokenizer: about four
 * characters per token for Latin-script text and code, one token per CJK character. It runs
 * before every request, so it is one pass over the text.
 */

const isCjk = (code: number): boolean =>
  (code >= 0x3000 && code <= 0x30ff) || (code >= 0x3400 && code <= 0x4dbf) || (code >= 0x4e00 && code <= 0x9fff) || (code >= 0xf900 && code <= 0xfaff) || (code >= 0xff00 && code <= 0xffef)

/** The characters `estimateTokens` counts: they add up over concatenated texts, so a long text can be tallied piece by piece. */
export interface CharTally {
  readonly cjk: number
  readonly other: number
}

/** The tally of one text. */
export const tallyChars = (text: string): CharTally => {
  let cjk = 0
  let other = 0
  for (let i = 0; i < text.length; i++) {
    if (isCjk(text.charCodeAt(i))) cjk += 1
    else other += 1
  }
  return { cjk, other }
}

/** Estimated tokens of a tally (the same rule as `estimateTokens`). */
export const tokensOfTally = (t: CharTally): number => t.cjk + Math.ceil(t.other / 4)

/** Estimated tokens of a text (no tokenizer: ~4 characters a token, 1 per CJK character). */
export const estimateTokens = (text: string): number => tokensOfTally(tallyChars(text))
