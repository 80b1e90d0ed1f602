/**
 * The settings that differ from the defaults, as `path: value` lines, for `/config`: the whole
 * config is a hundred lines of defaults; what a person wants to see is what was changed.
 */
const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v)

export const settingsDiff = (config: unknown, defaults: unknown, path = ""): ReadonlyArray<string> => {
  if (isRecord(config) && isRecord(defaults)) {
    const keys = [...new Set([...Object.keys(config), ...Object.keys(defaults)])]
    return keys.flatMap((k) => settingsDiff(config[k], defaults[k], path === "" ? k : `${path}.${k}`))
  }
  return JSON.stringify(config) === JSON.stringify(defaults) ? [] : [`${path}: ${config === undefined ? "(unset)" : JSON.stringify(config)}`]
}
