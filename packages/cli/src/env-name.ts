/**
 * How a message names an environment variable the person named by a flag or config key
 * (`--api-key-env`, `proxy.upstreamKeyEnv`, `proxy.tokenEnv`) when it is not set. People paste the
 * key itself there by mistake (`--api-key-env gsk_…`); echoing that "name" would print the key. So
 * only a conventional name (upper-case letters, digits, `_`) is shown; any other is described.
 */

const CONVENTIONAL_NAME = /^[A-Z_][A-Z0-9_]*$/

/** Whether `name` reads as an environment variable's name, not as a value. */
export const isConventionalEnvName = (name: string): boolean => CONVENTIONAL_NAME.test(name)

/** The variable `name` (given by `setting`) as a message names it: itself, or a description that never shows it. */
export const unsetVariableShown = (name: string, setting: string): string =>
  isConventionalEnvName(name)
    ? name
    : `a variable whose name is not shown (the value given to ${setting} looks like a key, not a variable name: give the NAME of the variable holding it, such as OPENAI_API_KEY)`
