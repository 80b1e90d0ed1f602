import type { RunPage } from "./page-model.js";
/** The head of every page: no network, the shared stylesheet. */
export declare const pageHead: (title: string) => string;
/** The page of one run. */
export declare const renderRunPage: (page: RunPage) => string;
