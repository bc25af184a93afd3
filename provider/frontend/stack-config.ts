/**
 * The settings as both Pulumi front ends take them: a stack's config keys `cws:<key>` (for the
 * plugin, the provider resource's inputs), else the CWS_* environment; what is missing or wrong
 * is said in Pulumi's words, with the command that sets it.
 */
import { SETTINGS, resolveSettings, settingProblem, type SettingKey, type Settings } from "./settings.ts";

/** `baseUrl` → `cws:baseUrl`. */
export const configKey = (key: SettingKey) => `cws:${key}`;

/** The command that sets a setting in the stack's config (secrets with `--secret`). */
export const configSetCommand = (key: SettingKey) =>
  `\`pulumi config set ${SETTINGS[key].secret ? "--secret " : ""}${configKey(key)} ...\``;

/**
 * The settings from the stack's config (`lookup("cws:baseUrl")`), each falling back to its
 * environment variable; else the error that says what to set.
 */
export function stackSettings(
  lookup: (configKey: string) => unknown,
  env: NodeJS.ProcessEnv = process.env,
): Settings | Error {
  const r = resolveSettings((k) => lookup(configKey(k)), env);
  if ("settings" in r) return r.settings;
  if ("invalid" in r)
    return new Error(
      `the cws provider is not configured: ${r.invalid.map((k) => settingProblem(k, configKey(k), lookup(configKey(k)), env)).join("; ")}`,
    );
  const missing = r.missing.map((k) => `${configKey(k)} (or ${SETTINGS[k].env})`);
  return new Error(
    `the cws provider is not configured: set ${missing.join(", ")}; e.g. ${configSetCommand("apiToken")}`,
  );
}
