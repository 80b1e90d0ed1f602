/** Builders for tool parts in tests. */
import type { ToolPart } from "../model/message.js"

let ids = 0

type Extra = Partial<Omit<ToolPart, "type" | "name" | "input">>

export const toolPart = (name: string, input: unknown, extra: Extra = {}): ToolPart => ({
  type: "tool",
  callId: `c${++ids}`,
  name,
  input,
  state: "completed",
  ...extra
})

/** A successful edit of `path` whose diff adds `added` and removes `removed`. */
export const editPart = (path: string, added: string, removed = "", extra: Extra = {}): ToolPart =>
  toolPart("edit", { file_path: path }, {
    path,
    diff: [`--- a/${path}`, `+++ b/${path}`, "@@ -1,1 +1,1 @@", ...(removed ? [`-${removed}`] : []), `+${added}`].join("\n"),
    ...extra
  })

export const bashPart = (command: string, exitCode: number, output = "", extra: Extra = {}): ToolPart =>
  toolPart("bash", { command }, { exitCode, output, ...extra })

export const readPart = (path: string): ToolPart => toolPart("read", { file_path: path }, { output: "contents" })
