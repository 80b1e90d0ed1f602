/**
 * A folder and its missing parents, made one level at a time. Node 22's recursive `mkdirSync`
 * never returns for a path under a file system that refuses new entries without saying ENOENT at
 * the top (`/proc/x/y` spins at full CPU and ignores SIGTERM); made level by level, the first
 * refusal is an error that names it. Throws as `mkdirSync` does.
 */
import { mkdirSync, statSync } from "node:fs"
import { dirname, resolve } from "node:path"

export const makeFolder = (path: string): void => {
  const missing: Array<string> = []
  let at = resolve(path)
  for (;;) {
    try {
      if (statSync(at).isDirectory()) break
      // A file where a folder must be: mkdirSync says so (EEXIST / ENOTDIR) below.
      break
    } catch {
      missing.push(at)
      const parent = dirname(at)
      if (parent === at) break
      at = parent
    }
  }
  for (const folder of missing.reverse()) mkdirSync(folder)
}
