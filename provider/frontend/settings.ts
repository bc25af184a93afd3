/**
 * The provider's settings, whatever the front end: where the service is (`baseUrl`), which org,
 * and the API token, each falling back to its CWS_* environment variable; and the one rule a base
 * URL follows. Each front end names them in its tool's words (`cws:baseUrl`, `endpoint`).
 */

/** The settings a client is made from. */
export interface Settings {
  baseUrl: string;
  org: string;
  token: string;
}

export type SettingKey = "baseUrl" | "org" | "apiToken";

/** Each setting: its environment variable, what it is (for schemas), whether it is a secret. */
export const SETTINGS: Record<SettingKey, { env: string; description: string; secret?: boolean }> = {
  baseUrl: { env: "CWS_BASE_URL", description: "Base URL of the service including /v3" },
  org: { env: "CWS_ORG", description: "Organization slug" },
  apiToken: { env: "CWS_API_TOKEN", description: "API token", secret: true },
};

export const SETTING_KEYS = Object.keys(SETTINGS) as SettingKey[];

/** A value given for a setting: a string that is not empty. */
export const givenValue = (v: unknown): string | undefined =>
  typeof v === "string" && v !== "" ? v : undefined;

/** A setting's value: the one given, else its environment variable's. */
export function settingValue(key: SettingKey, given: unknown, env: NodeJS.ProcessEnv): string | undefined {
  return givenValue(given) ?? givenValue(env[SETTINGS[key].env]);
}

/** The settings from the values given (by key), each falling back to its environment variable; else the keys set nowhere. */
export function resolveSettings(
  given: (key: SettingKey) => unknown,
  env: NodeJS.ProcessEnv = process.env,
): { settings: Settings } | { missing: SettingKey[] } {
  const values = Object.fromEntries(SETTING_KEYS.map((k) => [k, settingValue(k, given(k), env)]));
  const missing = SETTING_KEYS.filter((k) => values[k] === undefined);
  if (missing.length) return { missing };
  return { settings: { baseUrl: values.baseUrl!, org: values.org!, token: values.apiToken! } };
}

/**
 * What is wrong with a base URL, said of `name` (the setting as the tool calls it), or undefined
 * when it is an http(s) URL.
 */
export function baseUrlProblem(name: string, url: string): string | undefined {
  let ok = false;
  try {
    ok = ["http:", "https:"].includes(new URL(url).protocol);
  } catch {
    ok = false;
  }
  return ok
    ? undefined
    : `${name} must be an http(s) URL including /v3, e.g. https://api.example.com/v3 (got "${url}")`;
}
