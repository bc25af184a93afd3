/**
 * The provider's settings, whatever the front end: where the service is (`baseUrl`), which org,
 * the API token and, optionally, the most requests a second the provider sends
 * (`maxRequestsPerSecond`), each falling back to its CWS_* environment variable; and the rules
 * a base URL and a rate follow. Each front end names them in its tool's words (`cws:baseUrl`,
 * `endpoint`).
 */

/** The settings a client is made from. */
export interface Settings {
  baseUrl: string;
  org: string;
  token: string;
  /** The most requests a second the process sends to the service (its rate gate's cap). */
  maxRequestsPerSecond?: number;
}

export type SettingKey = "baseUrl" | "org" | "apiToken" | "maxRequestsPerSecond";

export interface SettingSpec {
  env: string;
  description: string;
  secret?: boolean;
  /** A number (given as a number or a string of one); the others are strings. */
  type?: "number";
  /** May be left unset anywhere. */
  optional?: boolean;
}

/** Each setting: its environment variable, what it is (for schemas), whether it is a secret. */
export const SETTINGS: Record<SettingKey, SettingSpec> = {
  baseUrl: { env: "CWS_BASE_URL", description: "Base URL of the service including /v3" },
  org: { env: "CWS_ORG", description: "Organization slug" },
  apiToken: { env: "CWS_API_TOKEN", description: "API token", secret: true },
  maxRequestsPerSecond: {
    env: "CWS_MAX_REQUESTS_PER_SECOND",
    description:
      "The most API requests a second the provider sends, all its operations together; unset, it sends as many as the service takes and slows down when the service answers 429",
    type: "number",
    optional: true,
  },
};

export const SETTING_KEYS = Object.keys(SETTINGS) as SettingKey[];
/** The settings every front end must have. */
export const REQUIRED_SETTING_KEYS = SETTING_KEYS.filter((k) => !SETTINGS[k].optional);

/** A value given for a setting: a string that is not empty. */
export const givenValue = (v: unknown): string | undefined =>
  typeof v === "string" && v !== "" ? v : undefined;

/** A value given for a number setting: a number, or a string that is not empty (checked by `rateProblem`). */
const givenNumber = (v: unknown): number | string | undefined => (typeof v === "number" ? v : givenValue(v));

/** A setting's value: the one given, else its environment variable's. */
export function settingValue(key: SettingKey, given: unknown, env: NodeJS.ProcessEnv): string | undefined {
  return givenValue(given) ?? givenValue(env[SETTINGS[key].env]);
}

/** A number setting's value as given (a number or a string), else its environment variable's. */
export function numberSettingValue(
  key: SettingKey,
  given: unknown,
  env: NodeJS.ProcessEnv,
): number | string | undefined {
  return givenNumber(given) ?? givenValue(env[SETTINGS[key].env]);
}

/** What is wrong with a rate (requests a second), said of `name`, or undefined when it is a positive number. */
export function rateProblem(name: string, value: number | string): string | undefined {
  const n = typeof value === "number" ? value : /^\s*\d*\.?\d+\s*$/.test(value) ? Number(value) : NaN;
  return n > 0 && Number.isFinite(n)
    ? undefined
    : `${name} must be a positive number of requests a second, e.g. 50 (got ${JSON.stringify(value)})`;
}

/**
 * The settings from the values given (by key), each falling back to its environment variable;
 * else the required keys set nowhere, or the keys whose value is wrong (`settingProblem` says
 * what is wrong in the tool's words).
 */
export function resolveSettings(
  given: (key: SettingKey) => unknown,
  env: NodeJS.ProcessEnv = process.env,
): { settings: Settings } | { missing: SettingKey[] } | { invalid: SettingKey[] } {
  const values = Object.fromEntries(REQUIRED_SETTING_KEYS.map((k) => [k, settingValue(k, given(k), env)]));
  const missing = REQUIRED_SETTING_KEYS.filter((k) => values[k] === undefined);
  if (missing.length) return { missing };
  const rate = numberSettingValue("maxRequestsPerSecond", given("maxRequestsPerSecond"), env);
  if (rate !== undefined && rateProblem("", rate)) return { invalid: ["maxRequestsPerSecond"] };
  return {
    settings: {
      baseUrl: values.baseUrl!,
      org: values.org!,
      token: values.apiToken!,
      ...(rate !== undefined ? { maxRequestsPerSecond: Number(rate) } : {}),
    },
  };
}

/** What is wrong with the value given for `key` (or its environment variable's), said of `name`. */
export function settingProblem(
  key: SettingKey,
  name: string,
  given: unknown,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  if (SETTINGS[key].type !== "number") return undefined;
  const v = numberSettingValue(key, given, env);
  return v === undefined ? undefined : rateProblem(name, v);
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
