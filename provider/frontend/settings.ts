/**
 * The provider's settings, whatever the front end: where the service is (`baseUrl`), which org,
 * the API token and, optionally, the most requests a second the provider sends
 * (`maxRequestsPerSecond`) and how long it keeps trying a service it cannot reach
 * (`unreachableTimeoutSec`), each falling back to its CWS_* environment variable; and the rules
 * a base URL and a number setting follow. Each front end names them in its tool's words (`cws:baseUrl`,
 * `endpoint`).
 */

/** The settings a client is made from. */
export interface Settings {
  baseUrl: string;
  org: string;
  token: string;
  /** The most requests a second the process sends to the service (its rate gate's cap). */
  maxRequestsPerSecond?: number;
  /** How long requests keep retrying a service they cannot reach, in seconds (client/reach.ts). */
  unreachableTimeoutSec?: number;
}

export type SettingKey = "baseUrl" | "org" | "apiToken" | "maxRequestsPerSecond" | "unreachableTimeoutSec";

/** The settings that are numbers. */
export type NumberSettingKey = "maxRequestsPerSecond" | "unreachableTimeoutSec";

export interface SettingSpec {
  env: string;
  description: string;
  secret?: boolean;
  /** A number (given as a number or a string of one); the others are strings. */
  type?: "number";
  /** A number setting's unit and an example, for the message of a wrong value. */
  unit?: { words: string; example: number };
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
    unit: { words: "requests a second", example: 50 },
    optional: true,
  },
  unreachableTimeoutSec: {
    env: "CWS_UNREACHABLE_TIMEOUT_SEC",
    description:
      "How long, in seconds, the provider keeps retrying a service it cannot reach (connection refused, unknown host, connect timeout) before the operation fails with an error naming the endpoint; default 20. A TLS failure fails at once",
    type: "number",
    unit: { words: "seconds", example: 20 },
    optional: true,
  },
};

export const NUMBER_SETTING_KEYS: NumberSettingKey[] = ["maxRequestsPerSecond", "unreachableTimeoutSec"];

export const SETTING_KEYS = Object.keys(SETTINGS) as SettingKey[];
/** The settings every front end must have. */
export const REQUIRED_SETTING_KEYS = SETTING_KEYS.filter((k) => !SETTINGS[k].optional);

/** A value given for a setting: a string that is not empty. */
export const givenValue = (v: unknown): string | undefined =>
  typeof v === "string" && v !== "" ? v : undefined;

/** A value given for a number setting: a number, or a string that is not empty (checked by `numberProblem`). */
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

/** What is wrong with a number setting's value, said of `name`, or undefined when it is a positive number. */
export function numberProblem(
  key: NumberSettingKey,
  name: string,
  value: number | string,
): string | undefined {
  const n = typeof value === "number" ? value : /^\s*\d*\.?\d+\s*$/.test(value) ? Number(value) : NaN;
  const unit = SETTINGS[key].unit!;
  return n > 0 && Number.isFinite(n)
    ? undefined
    : `${name} must be a positive number of ${unit.words}, e.g. ${unit.example} (got ${JSON.stringify(value)})`;
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
  const numbers: Partial<Record<NumberSettingKey, number>> = {};
  const invalid: SettingKey[] = [];
  for (const key of NUMBER_SETTING_KEYS) {
    const v = numberSettingValue(key, given(key), env);
    if (v === undefined) continue;
    if (numberProblem(key, "", v)) invalid.push(key);
    else numbers[key] = Number(v);
  }
  if (invalid.length) return { invalid };
  return {
    settings: {
      baseUrl: values.baseUrl!,
      org: values.org!,
      token: values.apiToken!,
      ...numbers,
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
  return v === undefined ? undefined : numberProblem(key as NumberSettingKey, name, v);
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
