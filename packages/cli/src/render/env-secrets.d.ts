export declare const REDACTED_VALUE = "[REDACTED]";
export declare const secretValues: (env: Readonly<Record<string, string | undefined>>, alsoNames: ReadonlyArray<string>) => ReadonlyArray<string>;
/** Replaces each value as it appears in JSON text: raw, and with JSON's escapes. */
export declare const redactValues: (jsonText: string, values: ReadonlyArray<string>) => string;
/** Plain-text replacement of each value. */
export declare const redactText: (text: string, values: ReadonlyArray<string>) => string;
/**
 * Redacts a stream of text pieces whose secrets may be split across pieces: the last
 * (longest secret − 1) characters are held back until the next piece or `flush`, so no prefix
 * of a secret is ever let out before it is known not to complete one.
 */
export declare const makeStreamRedactor: (secrets: ReadonlyArray<string>) => {
    push: (piece: string) => string;
    flush: () => string;
};
