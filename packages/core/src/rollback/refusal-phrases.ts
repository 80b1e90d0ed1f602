/**
 * Refusal phrases, by language. Data: a new phrasing or language is one more row. Rows are
 * written naturally; matching folds case, accents, quotes, punctuation and whitespace (see
 * `fold-text.ts`), so "I’m sorry,  but I CAN’T" matches the first row and "cannot" rows need
 * no "can't" twin. Keep rows specific: a generic "I can't" would flag ordinary answers.
 */
export interface RefusalPhrase {
  /** BCP 47 language tag (documentation and incident detail only). */
  readonly language: string
  readonly phrase: string
}

export const DEFAULT_REFUSAL_PHRASES: ReadonlyArray<RefusalPhrase> = [
  { language: "en", phrase: "I'm sorry, but I can't" },
  { language: "en", phrase: "I'm sorry, I can't" },
  { language: "en", phrase: "I apologize, but I can't" },
  { language: "en", phrase: "I can't help with" },
  { language: "en", phrase: "I can't assist with" },
  { language: "en", phrase: "I'm unable to help" },
  { language: "en", phrase: "I'm unable to assist" },
  { language: "en", phrase: "I'm not able to help" },
  { language: "en", phrase: "I won't be able to help" },
  { language: "en", phrase: "I must decline" },
  { language: "en", phrase: "as an AI language model" },
  // From MiroThinker's table: its models give up "due to time constraints".
  { language: "en", phrase: "due to time constraints" },
  { language: "zh", phrase: "我无法" },
  { language: "zh", phrase: "我不能帮" },
  { language: "zh", phrase: "很抱歉，我不能" },
  { language: "zh", phrase: "我做不到" },
  { language: "zh", phrase: "作为一个AI" },
  { language: "zh", phrase: "作为一个人工智能" },
  { language: "es", phrase: "lo siento, no puedo" },
  { language: "es", phrase: "lo siento, pero no puedo" },
  { language: "es", phrase: "no puedo ayudar" },
  { language: "es", phrase: "no puedo ayudarte" },
  { language: "es", phrase: "como modelo de lenguaje" },
  { language: "fr", phrase: "je ne peux pas" },
  { language: "fr", phrase: "je ne suis pas en mesure de" },
  { language: "fr", phrase: "en tant que modèle de langage" },
  { language: "de", phrase: "ich kann nicht" },
  { language: "de", phrase: "es tut mir leid, aber ich kann" },
  { language: "de", phrase: "leider kann ich nicht" },
  { language: "de", phrase: "ich kann Ihnen dabei nicht helfen" },
  { language: "de", phrase: "ich kann dir dabei nicht helfen" },
  { language: "de", phrase: "als KI-Sprachmodell" },
  { language: "ja", phrase: "お手伝いできません" },
  { language: "ja", phrase: "お応えできません" }
]
