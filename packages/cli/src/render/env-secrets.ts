/**
 * A session written to a file must not carry the secrets of the environment it ran in: the API
 * key loopguard holds, and any variable named like a credential whose value a tool printed and
 * the model repeated. Only exact values are replaced, so ids and hashes in a trace stay intact.
 */
import { makeRedactor, MIN_SECRET_LENGTH as CORE_MIN_SECRET_LENGTH, redactSecrets } from "@loopguard/core/try-best"
import { credentialValues, isCredentialName } from "@loopguard/effect/tools"

const MIN_SECRET_LENGTH = 8
export const REDACTED_VALUE = "[REDACTED]"

/**
 * The environment's secrets, one list for every door the CLI has (what it prints, the sessions it
 * stores, exports and shows): values of variables named like a credential (`isCredentialName`, the
 * shell scrub's rule, and `alsoNames`), and those the scrub takes as credentials by value
 * (`credentialValues`: a URL with a password, and that password alone).
 */
export const secretValues = (env: Readonly<Record<string, string | undefined>>, alsoNames: ReadonlyArray<string>): ReadonlyArray<string> =>
  [
    ...new Set([
      ...Object.entries(env)
        .filter(([name, v]) => v !== undefined && (isCredentialName(name) || alsoNames.includes(name)))
        .map(([, v]) => v as string),
      ...credentialValues(env)
    ])
  ]
    .filter((v) => v.length >= MIN_SECRET_LENGTH)
    .sort((a, b) => b.length - a.length)

/** Replaces each value as it appears in JSON text: raw, and with JSON's escapes. */
export const redactValues = (jsonText: string, values: ReadonlyArray<string>): string =>
  ordered(values).reduce((text, v) => text.split(v).join(REDACTED_VALUE).split(JSON.stringify(v).slice(1, -1)).join(REDACTED_VALUE), jsonText)

/**
 * Longest first (a value containing another goes whole); values too short to be a secret dropped,
 * as the core redactor drops them (a local server's key "none" would wreck every word holding it).
 */
const ordered = (values: ReadonlyArray<string>): ReadonlyArray<string> =>
  [...new Set(values)].filter((v) => v.length >= CORE_MIN_SECRET_LENGTH).sort((a, b) => b.length - a.length)

/** Plain-text replacement of each value. */
export const redactText = (text: string, values: ReadonlyArray<string>): string =>
  ordered(values).reduce((t, v) => t.split(v).join(REDACTED_VALUE), text)

/**
 * The boundary redactor (`makeRedactor`: credential formats, Authorization, a URL's password, a
 * query's `key=` / `sig=`, Cookie headers; docs/security.md) with this environment's credential
 * values (`secretValues`). No guessing: ids, hashes and settings pass unchanged.
 */
export const credentialRedactor = (env: Readonly<Record<string, string | undefined>>, alsoNames: ReadonlyArray<string> = []): ((text: string) => string) =>
  makeRedactor(secretValues(env, alsoNames))

/**
 * Secrets in a log never reach a page or a terminal (audit, its `--json` and `--html`, sessions show
 * --html): everything `credentialRedactor` removes, and what looks like a key or token on its own
 * (`redactSecrets`' guesses: a log is someone else's text, docs/audit.md). Other variables' values
 * (paths, user names) are left alone, or every path in a log would read "[REDACTED]".
 */
export const logRedactor = (env: Readonly<Record<string, string | undefined>> = process.env): ((text: string) => string) => {
  const boundary = credentialRedactor(env)
  // Both whole: redactSecrets runs the boundary's own passes again, and that second run catches what the
  // first one's replacements brought together (a `mysql … -p` phrase read anew once a password before it went).
  return (text: string): string => redactSecrets(boundary(text))
}
