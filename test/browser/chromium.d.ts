/**
 * Headless Chromium for the page tests: Debian's `chromium` package (installed by .ci/chromium.sh),
 * driven by puppeteer-core, which downloads no browser. CHROMIUM_PATH names another binary.
 */
import { type Browser } from "puppeteer-core";
export declare const chromiumPath: () => string | null;
/** A headless browser; close it when done (its process ends with it). */
export declare const launchChromium: (path: string) => Promise<Browser>;
/** How many distinct colours a PNG has (drawn in the browser: no image library needed). */
export declare const distinctColours: (browser: Browser, png: Uint8Array) => Promise<number>;
/** Width and height from a PNG's header. */
export declare const pngSize: (png: Uint8Array) => {
    width: number;
    height: number;
};
