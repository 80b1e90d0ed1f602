import { describe } from "bun:test"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { storeSuite } from "./store-suite.fixture.js"

describe("SQLite SessionStore", () => {
  storeSuite("sqlite", { fresh: async () => mkdtempSync(join(tmpdir(), "lg-sqlite-")) })
})
