/**
 * Names for tests that skip when their input is missing (a database, a binary, a corpus): bun lists a
 * skipped test by its name only, so the name carries the reason. Under CI=true, where the input is
 * expected, such suites run (and fail) instead of skipping.
 */

/** `name`, or `name [skipped: reason]` when the test is skipped for `skipReason`. */
export const skipName = (name: string, skipReason: string | undefined): string => (skipReason === undefined ? name : `${name} [skipped: ${skipReason}]`)

/** Why a Postgres suite skips: TEST_POSTGRES_URL is unset (outside CI), else undefined. */
export const postgresSkipReason = (): string | undefined => {
  const url = process.env["TEST_POSTGRES_URL"]
  return (url === undefined || url === "") && process.env["CI"] !== "true" ? "TEST_POSTGRES_URL is not set (source .ci/postgres.sh)" : undefined
}
