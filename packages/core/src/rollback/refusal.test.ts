import { describe, expect, test } from "bun:test"
import fc from "fast-check"
import { findPhrase, foldPhraseText } from "./fold-text.js"
import { DEFAULT_REFUSAL_OPTIONS, detectRefusal, type RefusalMatch } from "./refusal.js"
import { DEFAULT_REFUSAL_PHRASES } from "./refusal-phrases.js"

describe("foldPhraseText", () => {
  test("case, curly quotes, punctuation, whitespace and accents fold away", () => {
    expect(foldPhraseText("I’m  SORRY,\tbut I can’t!")).toBe(foldPhraseText("i'm sorry, but i can't"))
    expect(foldPhraseText("Je suis désolé")).toBe("je suis desole")
  })
  test("English contractions are canonical", () => {
    expect(foldPhraseText("I am sorry, but I cannot")).toBe(foldPhraseText("I'm sorry, but I can't"))
    expect(foldPhraseText("I can not")).toBe("i cant")
  })
  test("spaces next to CJK characters do not matter; fullwidth punctuation is punctuation", () => {
    expect(foldPhraseText("作为一个 AI ， 我 无法")).toBe(foldPhraseText("作为一个AI，我无法"))
  })
})

describe("findPhrase", () => {
  test("Latin phrases need word boundaries; CJK phrases do not", () => {
    expect(findPhrase(foldPhraseText("ich kann nichts dafür"), foldPhraseText("ich kann nicht"))).toBe(-1)
    expect(findPhrase(foldPhraseText("ich kann nicht helfen"), foldPhraseText("ich kann nicht"))).toBe(0)
    expect(findPhrase(foldPhraseText("抱歉我无法完成"), foldPhraseText("我无法"))).toBe(2)
  })
})

describe("detectRefusal", () => {
  const refusals: ReadonlyArray<readonly [string, string]> = [
    ["en", "I'm sorry, but I can't help with that."],
    ["en", "I’m sorry, but I can’t do this task."],
    ["en", "i'M   sOrRy,\n\nbut   I  CANNOT complete it"],
    ["en", "“I am sorry, but I can not”"],
    ["en", "Unfortunately I cannot help with requests like this."],
    ["en", "Due to time constraints, I will stop here."],
    ["zh", "作为一个AI，我不能提供这个信息。"],
    ["zh", "作为一个 AI 语言模型……"],
    ["zh", "抱歉，我无法完成这个任务。"],
    ["es", "Lo siento, no puedo ayudar con eso."],
    ["es", "LO SIENTO,  PERO NO PUEDO."],
    ["fr", "Je suis désolé, mais je ne peux pas faire cela."],
    ["fr", "Désolé — je ne peux pas."],
    ["de", "Es tut mir leid, aber ich kann das nicht tun."],
    ["de", "Ich kann nicht auf das Internet zugreifen."],
    ["ja", "申し訳ありませんが、お手伝いできません。"]
  ]
  for (const [language, text] of refusals) {
    test(`${language}: ${JSON.stringify(text)}`, () => {
      const hit = detectRefusal(text)
      expect(hit).not.toBeNull()
      expect(hit?.language).toBe(language)
    })
  }

  const body = "The build passes and the migration is done. ".repeat(12)

  test("a long answer that quotes a refusal in its body is not a refusal", () => {
    const long = `${body}The old bot used to reply "I'm sorry, but I can't help with that", which we replaced. ${body}`
    expect(detectRefusal(long)).toBeNull()
  })

  test("a long reply that opens with a refusal is one", () => {
    expect(detectRefusal(`I'm sorry, but I can't do that. ${body}`)).toMatchObject({ phrase: "I'm sorry, but I can't", at: 0 })
  })

  test("a short reply with the refusal late in it is one", () => {
    expect(detectRefusal("Here is what I tried: the search found nothing useful, so ich kann nicht weitermachen.")).not.toBeNull()
  })

  test("the thresholds are the options", () => {
    const text = `${"x ".repeat(50)}je ne peux pas`
    expect(detectRefusal(text)).not.toBeNull()
    expect(detectRefusal(text, { shortReplyChars: 50 })).toBeNull()
    expect(detectRefusal(text, { shortReplyChars: 50, leadChars: 100 })).not.toBeNull()
    expect(DEFAULT_REFUSAL_OPTIONS).toMatchObject({ leadChars: 80, shortReplyChars: 300 })
  })

  test("ordinary answers and near misses are not refusals", () => {
    for (const text of ["", "Done: all 12 tests pass.", "I can help with that.", "Ich kann nichts dafür, aber hier ist die Lösung.", "Sorry for the delay, here you go."]) {
      expect(detectRefusal(text)).toBeNull()
    }
  })

  test("a custom phrase table replaces the default", () => {
    expect(detectRefusal("Nope.", { phrases: [{ language: "en", phrase: "nope" }] })).toMatchObject({ phrase: "nope" })
    expect(detectRefusal("I'm sorry, but I can't", { phrases: [] })).toBeNull()
  })

  /** The rule read off the whole folded reply, as it was before long replies were folded by heads. */
  const wholeFold = (text: string): RefusalMatch | null => {
    const body = foldPhraseText(text)
    const short = body.length <= DEFAULT_REFUSAL_OPTIONS.shortReplyChars
    let best: RefusalMatch | null = null
    for (const row of DEFAULT_REFUSAL_PHRASES) {
      const at = findPhrase(body, foldPhraseText(row.phrase))
      if (at === -1 || (!short && at > DEFAULT_REFUSAL_OPTIONS.leadChars)) continue
      if (best === null || at < best.at) best = { phrase: row.phrase, language: row.language, at }
    }
    return best
  }

  test("a long reply is judged by a folded head, with the verdict of the whole fold", () => {
    const phrases = DEFAULT_REFUSAL_PHRASES.map((p) => p.phrase)
    const filler = fc.constantFrom("the", "build", "passes", ".", ", ", "\n", "  ", "I", "can", "not", "will", "'", "Σ", "字", "ok")
    const piece = fc.oneof({ weight: 1, arbitrary: fc.constantFrom(...phrases) }, { weight: 12, arbitrary: filler })
    const reply = fc.array(piece, { minLength: 1, maxLength: 1600 }).map((ps) => ps.join(" "))
    fc.assert(
      fc.property(reply, (text) => {
        expect(detectRefusal(text)).toEqual(wholeFold(text))
      }),
      { numRuns: 200 }
    )
  })

  test("a 600 kB reply: a refusal that opens it is found, one quoted 100 characters in is not", () => {
    const tail = " and then the whole answer follows with every detail of the work done".repeat(8000)
    expect(detectRefusal(`I'm sorry, but I can't do that${tail}`)).toMatchObject({ at: 0 })
    expect(detectRefusal(`${"Here is the plan for the migration of the service. ".repeat(2)}I'm sorry, but I can't${tail}`)).toBeNull()
  })
})
