/**
 * The page's summary, from the incidents and the first exit: counts by detector and kind, where
 * the first loop began, what loopguard would have done and when, and the spans of steps that
 * repeated (drawn highlighted on the timeline).
 */
import type { AuditIncident } from "@loopguard/effect/audit";
export interface Span {
    readonly from: number;
    readonly to: number;
    readonly detector: string;
}
export interface RunSummary {
    readonly byDetector: ReadonlyArray<{
        readonly detector: string;
        readonly kind: string;
        readonly count: number;
    }>;
    readonly byKind: ReadonlyArray<{
        readonly kind: string;
        readonly count: number;
    }>;
    /** Step where the first loop began (the start of its repeated span), or null. */
    readonly firstLoop: {
        readonly step: number;
        readonly detector: string;
        readonly firedAt: number;
    } | null;
    /** The first incident that would have changed the run (not a note or a detection only). */
    readonly firstAction: AuditIncident | null;
    readonly spans: ReadonlyArray<Span>;
}
/** The steps an incident says repeated: its fromStep…toStep, else the `count` steps up to it. */
export declare const spanOf: (i: AuditIncident) => Span | null;
export declare const summarize: (incidents: ReadonlyArray<AuditIncident>) => RunSummary;
