/** The package version `--version` prints; test/cli-contract.test.ts keeps it equal to package.json's. */
export const VERSION = "0.1.0"
