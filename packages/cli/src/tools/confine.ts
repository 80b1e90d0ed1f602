/**
 * Path confinement for the file tools. A path is inside the working directory only if its real
 * location is: symlinks in the target and in every parent are resolved before the check, so a
 * link inside the folder that points outside is refused. The check is on path segments, so a
 * file named `..foo` is an ordinary name.
 */
import { realpath } from "node:fs/promises"
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path"

export class OutsideWorkdir extends Error {
  constructor(readonly path: string) {
    super(`path ${path} is outside the working directory`)
  }
}

/** `child` is `root` itself or below it (both already absolute and normalized). */
export const isWithin = (root: string, child: string): boolean => {
  const rel = relative(root, child)
  return rel === "" || (rel !== ".." && !rel.startsWith(".." + sep) && !isAbsolute(rel))
}

/** The real path of `full`; for a path that does not exist yet, its deepest existing parent's real path plus the rest. */
const realOrNearest = async (full: string): Promise<string> => {
  try {
    return await realpath(full)
  } catch (e) {
    const parent = dirname(full)
    if ((e as NodeJS.ErrnoException).code !== "ENOENT" || parent === full) throw e
    return join(await realOrNearest(parent), basename(full))
  }
}

/**
 * The real absolute path of `path` (relative to `root`, or absolute), or OutsideWorkdir when it
 * or anything a symlink on the way leads to lies outside `root`.
 */
export const confine = async (root: string, path: unknown): Promise<string> => {
  const shown = typeof path === "string" && path !== "" ? path : "."
  const realRoot = await realpath(root)
  const full = resolve(realRoot, shown)
  if (!isWithin(realRoot, full)) throw new OutsideWorkdir(shown)
  const real = await realOrNearest(full)
  if (!isWithin(realRoot, real)) throw new OutsideWorkdir(shown)
  return real
}
