/**
 * The output of a Codex tool call as rollouts record it, across versions: a JSON text
 * `{"output": …, "metadata": {"exit_code": N}}`, a text with an "Exit code: N / Wall time" header
 * (or, from `exec_command`, a "Process exited with code N" line before "Output:"), a list of
 * content items, or `{content, success}`.
 */
import { isJsonObject } from "../fields.js"
import { exitCodeIn, num, obj, str, textOf } from "./json-line.js"

export interface CallOutput {
  readonly text: string
  readonly exitCode?: number
  readonly error?: boolean
}

/** The header of `exec_command` output in newer rollouts: "… Process exited with code N …" before "Output:". */
const processExit = (text: string): number | undefined => {
  const head = text.slice(0, Math.max(0, text.indexOf("\nOutput:")) || 400)
  const m = /^Process exited with code (-?\d+)\s*$/m.exec(head)
  return m === null ? undefined : Number.parseInt(m[1]!, 10)
}

/** Codex's answer to a call whose arguments it could not read (cut off at the length limit): nothing ran. */
const REFUSED_ARGUMENTS = /^failed to parse function arguments\b/

const fromText = (text: string): CallOutput => {
  if (REFUSED_ARGUMENTS.test(text)) return { text, error: true }
  if (text.startsWith("{")) {
    try {
      const v: unknown = JSON.parse(text)
      if (isJsonObject(v) && typeof v["output"] === "string") {
        const code = num(obj(v, "metadata"), "exit_code")
        return code === undefined ? { text: v["output"] } : { text: v["output"], exitCode: code }
      }
    } catch {
      // Not the JSON wrapping: the text is the output.
    }
  }
  const code = /^Exit code: -?\d+\s*\nWall time:/.test(text) ? exitCodeIn(text) : processExit(text)
  return code === undefined ? { text } : { text, exitCode: code }
}

export const codexCallOutput = (output: unknown): CallOutput => {
  if (typeof output === "string") return fromText(output)
  if (Array.isArray(output)) return fromText(textOf(output))
  if (isJsonObject(output)) {
    const inner = fromText(str(output, "content") ?? textOf(output["content"]))
    return output["success"] === false ? { ...inner, error: true } : inner
  }
  return { text: "" }
}
