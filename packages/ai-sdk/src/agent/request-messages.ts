/**
 * What `prepareStep` does to the AI SDK's messages before a request: the previous note taken out
 * (it was for one request only), replies the judge cropped left out, the reminders and the new
 * note appended as user messages. A request loopguard has nothing to add to is left as it was.
 */
import type { ModelMessage } from "ai"
import { applyCrops } from "@loopguard/core/loops"
import type { CropMarker, Message } from "@loopguard/core/model"

/** The steps whose replies the crops leave out of every later request. */
export const croppedSteps = (messages: ReadonlyArray<Message>, crops: ReadonlyArray<CropMarker>): ReadonlySet<number> => {
  if (crops.length === 0) return new Set()
  const ids = new Set(applyCrops(messages, crops).croppedIds)
  return new Set(messages.flatMap((m) => (m.role === "assistant" && ids.has(m.id) ? [m.step] : [])))
}

/**
 * Tags the newest step's reply and tool results among `messages` with its step number. The AI SDK
 * keeps the message objects of earlier requests in later ones and appends each step's response
 * messages, so the untagged assistant and tool messages at the end are the newest step's.
 */
export const tagNewestStep = (messages: ReadonlyArray<ModelMessage>, step: number, tags: WeakMap<object, number>): void => {
  // Steering messages (a reminder after a cut reply) are appended after the step's own messages.
  let end = messages.length - 1
  while (end >= 0 && messages[end]!.role === "user" && !tags.has(messages[end]!)) end--
  for (let i = end; i >= 0; i--) {
    const m = messages[i]!
    if (tags.has(m) || (m.role !== "assistant" && m.role !== "tool")) return
    tags.set(m, step)
  }
}

/** `messages` without the replies (and tool results) of `steps`; "Continue." closes a request whose tail was cropped. */
export const withoutSteps = (messages: ReadonlyArray<ModelMessage>, steps: ReadonlySet<number>, tags: WeakMap<object, number>): Array<ModelMessage> => {
  if (steps.size === 0) return [...messages]
  const out = messages.filter((m) => !steps.has(tags.get(m) ?? -1))
  // Reasoning-loop cropping (docs/loops.md): a request must not end on the model's own reply once its tail was cropped.
  const last = out[out.length - 1]
  if (last !== undefined && last.role === "assistant" && last !== messages[messages.length - 1]) out.push({ role: "user", content: "Continue." })
  return out
}

/** A user message written by loopguard (a reminder or a note). */
export const userNote = (text: string): ModelMessage => ({ role: "user", content: text })
