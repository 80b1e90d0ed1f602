import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { textStream } from "./builders.js";
import { startScriptedServer } from "./server.js";

const saved = process.env.SCRIPTED_SERVER_BODY_HASHES;
afterEach(() => {
  if (saved === undefined) delete process.env.SCRIPTED_SERVER_BODY_HASHES;
  else process.env.SCRIPTED_SERVER_BODY_HASHES = saved;
});

describe("SCRIPTED_SERVER_BODY_HASHES", () => {
  test("each body's sha256 and path are appended; temporary directory names do not change the hash, anything else does", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lg-hash-"));
    const file = join(dir, "hashes.txt");
    process.env.SCRIPTED_SERVER_BODY_HASHES = file;
    const server = await startScriptedServer([textStream("a"), textStream("b"), textStream("c")]);
    try {
      const post = (content: string) =>
        fetch(`${server.baseURL}/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ messages: [{ role: "system", content }] }) }).then((r) => r.text());
      await post(`working in ${tmpdir()}/lg-run-Ab12Cd. Go.`);
      await post(`working in ${tmpdir()}/lg-run-Zz98Yy. Go.`);
      await post(`working in ${tmpdir()}/lg-run-Zz98Yy. Stop.`);
      const lines = readFileSync(file, "utf8").trim().split("\n").map((l) => l.split(" "));
      expect(lines.map(([, path]) => path)).toEqual(["/v1/chat/completions", "/v1/chat/completions", "/v1/chat/completions"]);
      expect(lines.every(([hash]) => /^[0-9a-f]{64}$/.test(hash!))).toBe(true);
      expect(lines[0]![0]).toBe(lines[1]![0]!);
      expect(lines[2]![0]).not.toBe(lines[1]![0]!);
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
