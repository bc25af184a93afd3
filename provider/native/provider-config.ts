/**
 * The plugin's provider configuration: `baseUrl`, `org`, `apiToken` (a secret) and the optional
 * `maxRequestsPerSecond` from the provider resource's inputs (the stack's `cws:*` keys for the default provider), with the `CWS_*`
 * environment as fallback (frontend/settings.ts). CheckConfig names the key that is missing or
 * wrong; Configure makes the settings, or the error the first call that needs them reports.
 */
import type { CheckFailure, Props } from "../core/types.ts";
import { UNKNOWN } from "../core/unknowns.ts";
import {
  SETTINGS,
  SETTING_KEYS,
  baseUrlProblem,
  givenValue,
  settingProblem,
  settingValue,
  type Settings,
} from "../frontend/settings.ts";
import { configKey, configSetCommand, stackSettings } from "../frontend/stack-config.ts";

export const CONFIG_KEYS = SETTING_KEYS;
export const CONFIG_SECRETS = SETTING_KEYS.filter((k) => SETTINGS[k].secret);

export function checkConfig(news: Props, env: NodeJS.ProcessEnv = process.env): CheckFailure[] {
  const failures: CheckFailure[] = [];
  for (const key of CONFIG_KEYS) {
    const v = news[key];
    if (v === UNKNOWN) continue;
    if (SETTINGS[key].type === "number") {
      const problem = settingProblem(key, configKey(key), v, env);
      if (problem) failures.push({ property: key, reason: problem });
      continue;
    }
    if (v !== undefined && typeof v !== "string") {
      failures.push({ property: key, reason: `${configKey(key)} must be a string` });
      continue;
    }
    if (!settingValue(key, v, env)) {
      failures.push({
        property: key,
        reason: `${configKey(key)} is not set (nor ${SETTINGS[key].env}): ${configSetCommand(key)}`,
      });
    }
  }
  // The base URL in effect (the one given, else the environment's) follows the one rule.
  const url = news.baseUrl === undefined ? settingValue("baseUrl", undefined, env) : givenValue(news.baseUrl);
  const problem = url && url !== UNKNOWN ? baseUrlProblem(configKey("baseUrl"), url) : undefined;
  if (problem) failures.push({ property: "baseUrl", reason: problem });
  return failures;
}

/** Settings from Configure's arguments (or its variables map, `cws:config:<key>`), else the error. */
export function configFrom(args: Props, variables: Map<string, string>): Settings | Error {
  return stackSettings((configKeyName) => {
    const key = configKeyName.replace(/^cws:/, "");
    const fromArgs = typeof args[key] === "number" ? args[key] : givenValue(args[key]);
    if (fromArgs !== undefined) return fromArgs;
    for (const name of [`cws:config:${key}`, configKeyName]) {
      const v = variables.get(name);
      if (v !== undefined) return v;
    }
    return undefined;
  });
}
