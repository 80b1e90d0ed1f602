import { Permission } from "@loopguard/effect"
import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { cliPermission } from "./permission.js"

const request = { kind: "doom-loop" as const, tool: "bash", input: { command: "ls" }, step: 3 }
const askWith = (layer: ReturnType<typeof cliPermission>) =>
  Effect.runPromise(Effect.provide(Effect.gen(function* () {
    return yield* (yield* Permission).ask(request)
  }), layer))

describe("cliPermission", () => {
  test("on a terminal, the person's yes allows and anything else denies", async () => {
    const asked: Array<string> = []
    const ask = (answer: string | null) => async (q: string) => (asked.push(q), answer)
    expect(await askWith(cliPermission(true, true, ask("y")))).toBe("allow")
    expect(await askWith(cliPermission(true, true, ask("")))).toBe("deny")
    expect(await askWith(cliPermission(true, true, ask(null)))).toBe("deny")
    expect(asked[0]).toContain("bash")
  })
  test("without a terminal, or non-interactive, it denies without asking", async () => {
    let asked = 0
    const ask = async () => (asked++, "y")
    expect(await askWith(cliPermission(true, false, ask))).toBe("deny")
    expect(await askWith(cliPermission(false, true, ask))).toBe("deny")
    expect(asked).toBe(0)
  })
})
