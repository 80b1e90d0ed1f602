/**
 * The tool → server map, read back from the system prompt that listed the tools to the model
 * (MiroThinker builds its prompt that way, then uses the map to fix calls that name the wrong
 * server). Accepted lines, one name per line, case-insensitive:
 *
 *   ## Server name: tool-python          any heading level (#…######), a list bullet (- * +),
 *   ### Tool name: run_python_code       a numbered item (1. / 1)), or nothing in front;
 *   - **Tool name:** `google_search`     bold (**), backticks or quotes around label or name;
 *   Server_name: search / server-name：x  "_", "-" or a space inside the label; ":" or "：".
 *
 * A tool line belongs to the nearest server line above it; tool lines before any server line are
 * ignored, and so is every other line (descriptions, schemas). The name is the first run of
 * non-space characters after the colon. A tool listed under two different servers is ambiguous
 * and left out of the map: guessing would move a correct call to the wrong server.
 */
export type ServerMap = Readonly<Record<string, string>>

const LINE_PREFIX = /^(?:#{1,6}|[-*+]|\d+[.)])\s*/
const LABEL = /^(server|tool)[\s_-]?name\s*[:：]\s*(.*)$/i

const cleanLine = (line: string): string => line.replace(/\*\*/g, "").trim().replace(LINE_PREFIX, "").trim()

const firstName = (value: string): string | undefined => {
  const name = value.replace(/[`"'“”‘’]/g, " ").trim().split(/\s+/)[0]
  return name === undefined || name === "" ? undefined : name
}

/** Which MCP server each tool belongs to, read from a system prompt's tool listing. */
export const serverMapFromSystemPrompt = (text: string): ServerMap => {
  const found = new Map<string, string>()
  const ambiguous = new Set<string>()
  let server: string | undefined
  if (typeof text !== "string") return {}
  for (const raw of text.split(/\r?\n/)) {
    const m = LABEL.exec(cleanLine(raw))
    if (m === null) continue
    const name = firstName(m[2] ?? "")
    if ((m[1] ?? "").toLowerCase() === "server") {
      server = name
      continue
    }
    if (server === undefined || name === undefined) continue
    const known = found.get(name)
    if (known !== undefined && known !== server) ambiguous.add(name)
    else found.set(name, server)
  }
  for (const name of ambiguous) found.delete(name)
  // fromEntries defines own properties, so a tool named "__proto__" stays an ordinary key.
  return Object.fromEntries(found)
}
