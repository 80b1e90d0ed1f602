import { mkdirSync, statSync } from "node:fs"
import { dirname, resolve } from "node:path"

/**
 * A folder and its missing parents, made one level at a time. Node 22's recursive `mkdirSync`
 * never returns for a path under a file system that refuses new entries without saying ENOENT at
 * the top (`/proc/x/y` spins at full CPU and ignores SIGTERM); made level by level, the first
 * refusal is an error that names it. `mode`: of the folders it makes (0o700 for one holding sessions).
 * Throws as `mkdirSync` does.
 */
export const makeFolder = (path: string, mode?: number): void => {
  const missing: Array<string> = []
  let at = resolve(path)
  for (;;) {
    try {
      // Found: a folder, or a file where a folder must be (mkdirSync below then says so).
      statSync(at)
      break
    } catch {
      missing.push(at)
      const parent = dirname(at)
      if (parent === at) break
      at = parent
    }
  }
  for (const folder of missing.reverse()) mkdirSync(folder, mode === undefined ? undefined : { mode })
}
