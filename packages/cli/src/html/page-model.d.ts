/**
 * What a run's page shows, as plain data: each step cut to what a reader looks at (long texts
 * clipped, every string passed through the redactor), the incidents and the run's outcome. The
 * page embeds this as JSON and draws it in the browser.
 */
import type { AssistantMessage, UserMessage } from "@loopguard/core/model";
import type { AuditIncident } from "@loopguard/effect/audit";
export interface CallView {
    readonly name: string;
    /** The call's input as JSON text (clipped). */
    readonly input: string;
    readonly state: string;
    readonly output?: string;
    readonly exit?: number;
    readonly error?: string;
    readonly path?: string;
    readonly diff?: string;
}
export interface StepView {
    readonly n: number;
    /** Line of the step in its file (0 when it comes from a store). */
    readonly line: number;
    readonly users: ReadonlyArray<string>;
    readonly reasoning?: string;
    readonly text?: string;
    readonly calls: ReadonlyArray<CallView>;
    readonly finish?: string;
    readonly error?: string;
    readonly tokens?: number;
}
export interface RunPage {
    readonly title: string;
    readonly file: string;
    readonly format: string;
    readonly steps: ReadonlyArray<StepView>;
    readonly incidents: ReadonlyArray<AuditIncident>;
    readonly exit: {
        readonly reason: string;
        readonly step: number;
    } | null;
    readonly notes: ReadonlyArray<string>;
}
/** Characters kept of one text on the page: a run of 10,000 steps must stay a page a browser opens. */
export declare const CLIP_TEXT = 4000;
export declare const CLIP_OUTPUT = 2000;
export declare const CLIP_INPUT = 1000;
/** The beginning of `s`, and how much was left out. */
export declare const clip: (s: string, max: number) => string;
type Redact = (text: string) => string;
/** One step as the page shows it: the users before it, then its reply. */
export declare const stepView: (n: number, line: number, users: ReadonlyArray<UserMessage>, reply: AssistantMessage, redact: Redact) => StepView;
export {};
