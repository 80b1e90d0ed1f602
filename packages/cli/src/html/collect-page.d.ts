import { type AuditedFile } from "@loopguard/effect/audit";
import { Effect } from "effect";
import { type RunPage } from "./page-model.js";
/**
 * Secrets in a log never reach a page: the values of this machine's variables named like
 * credentials, and whatever looks like a key or token on its own. Other variables' values (paths,
 * user names) are left alone, or every path in a log would read "[REDACTED]".
 */
export declare const pageRedactor: (env?: Readonly<Record<string, string | undefined>>) => (text: string) => string;
/** The page of an audited file at `path` (its steps are read again, streamed). */
export declare const collectRunPage: (r: AuditedFile, path: string, maxLineBytes: number, redact?: (t: string) => string) => Effect.Effect<RunPage, string>;
