/**
 * The run page's script: draws the timeline from the embedded JSON. A run of up to 1,000 steps
 * is drawn whole at once; a longer one draws its first 200 steps and the rest as the reader
 * scrolls near the end or jumps to a step (`body[data-ready]` once the first are drawn,
 * `body[data-drawn]` counts the steps drawn). Log text
 * only ever enters the page as text nodes (`textContent`), never as markup. Folds fill their
 * contents when first opened. Keys: j / k next / previous step with incidents.
 */
export declare const PAGE_SCRIPT: string;
