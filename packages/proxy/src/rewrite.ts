/**
 * A request as it goes upstream after the verdict: reminders placed (for the upstream only), the
 * replies the proxy cut cropped to their notice, and on a turn's last allowed step the tools off.
 * Everything else is the client's body as sent.
 */
import { CUT_MARK, isCutReply } from "./notices.js"
import type { Protocol } from "./protocol.js"
import type { Verdict } from "./verdict.js"

/** A cut reply's text reduced to its notice: the repeating span never goes upstream again. */
export const croppedCut = (text: string): string | null => {
  if (!isCutReply(text)) return null
  const at = text.indexOf(CUT_MARK)
  const end = text.indexOf("]", at)
  return text.slice(at, end === -1 ? undefined : end + 1)
}

/**
 * The upstream body. Texts for one place are joined into one message; places are filled from the
 * end backwards, so the wire positions still to be filled stay valid.
 */
export const upstreamBody = (protocol: Protocol, body: any, verdict: Pick<Verdict, "inserts" | "cropCuts" | "toolsOff">): any => {
  const { inserts, cropCuts, toolsOff } = verdict
  const byPlace = new Map<number | null, Array<string>>()
  for (const insert of inserts) byPlace.set(insert.before, [...(byPlace.get(insert.before) ?? []), insert.text])
  const places = [...byPlace.keys()].sort((a, b) => (b ?? Number.MAX_SAFE_INTEGER) - (a ?? Number.MAX_SAFE_INTEGER))
  let out = body
  for (const place of places) out = protocol.insertUserText(out, place, byPlace.get(place)!.join("\n\n"))
  const cropped = cropCuts ? protocol.mapAssistantText(out, croppedCut) : out
  return toolsOff ? protocol.withoutTools(cropped) : cropped
}
