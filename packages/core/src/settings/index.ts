// Partial settings over defaults, checked without a schema library (for entries that load no Effect).
export * from "./check-patch.js"
export * from "./snake-case-keys.js"
export * from "./price-table.js"
