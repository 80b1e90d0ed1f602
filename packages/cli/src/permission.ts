/**
 * The CLI's Permission layer: on a terminal with `loop.interactive`, a doom loop asks the person
 * (default no); anywhere else there is no one to ask, so the answer is no (docs/loops.md, doom loop).
 */
import { Permission, type PermissionRequest } from "@loopguard/effect"
import { Effect, Layer } from "effect"
import { askOnTerminal, type AskLine } from "./pause/pause-prompt.js"

export const questionOf = (r: PermissionRequest): string => {
  const input = JSON.stringify(r.input)
  return `\nloopguard: step ${r.step} called ${r.tool} three times in a row with the same input ${input.length > 120 ? input.slice(0, 117) + "..." : input}.\nLet it run again? [y/N] `
}

export const cliPermission = (interactive: boolean, isTTY: boolean, ask: AskLine = askOnTerminal): Layer.Layer<Permission> =>
  interactive && isTTY
    ? Layer.succeed(Permission, Permission.make((request) =>
        Effect.promise(() => ask(questionOf(request))).pipe(Effect.map((answer) => (/^\s*y(es)?\s*$/i.test(answer ?? "") ? "allow" : "deny")))
      ))
    : Permission.layerDeny
