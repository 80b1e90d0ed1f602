import { envVariables } from "@loopguard/effect/config"
import { expect, test } from "bun:test"
import { readFileSync } from "node:fs"

test("docs/config.md lists every environment variable and config key", () => {
  const doc = readFileSync(new URL("../docs/config.md", import.meta.url), "utf8")
  const missing = envVariables().filter((v) => !doc.includes(`\`${v.name}\``) || !doc.includes(`\`${v.path.join(".")}\``))
  expect(missing.map((v) => v.name)).toEqual([])
})
