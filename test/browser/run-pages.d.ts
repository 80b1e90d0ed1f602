import type { RunPage } from "../../packages/cli/src/html/page-model.js";
/** Audits `path` (named `name` on the page) and writes its page to `out`; the page's data. */
export declare const writePageOf: (path: string, out: string, name?: string) => Promise<RunPage>;
/**
 * A generated trace v1 run of `steps` steps that goes round in circles in places: a test command
 * failing the same way a few times in a row every 50 steps, between varied reads and edits.
 */
export declare const writeLongTrace: (dir: string, steps: number) => string;
