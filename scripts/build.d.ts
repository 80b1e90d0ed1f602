export declare const LIBRARIES: readonly ["core", "effect", "ai-sdk", "proxy"];
/**
 * jsonc-parser's `main` is a UMD file whose requires a bundler cannot follow; its ESM build is
 * not reachable through a Node-valid specifier, so the bundle maps the package root onto it.
 */
export declare const jsoncToEsm: Bun.BunPlugin;
/** The CLI bundle; `bun run bench` rebuilds it so start-up is measured on the current code. */
export declare const buildCli: () => Promise<void>;
