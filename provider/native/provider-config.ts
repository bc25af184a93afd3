/**
 * The plugin's provider configuration: `baseUrl`, `org`, `apiToken` (a secret) from the provider
 * resource's inputs (the stack's `cws:*` keys for the default provider), with the `CWS_*`
 * environment as fallback. CheckConfig names the key that is missing or wrong.
 */
import { CONFIG_ENV, resolveConfig, type ProviderConfig } from "../core/config.ts";
import type { CheckFailure, Props } from "../core/types.ts";
import { UNKNOWN } from "../core/unknowns.ts";

export const CONFIG_KEYS = ["baseUrl", "org", "apiToken"] as const;
export const CONFIG_SECRETS = ["apiToken"];

/** Config values arrive as strings, or JSON-encoded in Configure's variables map. */
function str(v: unknown): string | undefined {
  return typeof v === "string" && v !== "" ? v : undefined;
}

export function checkConfig(news: Props, env: NodeJS.ProcessEnv = process.env): CheckFailure[] {
  const failures: CheckFailure[] = [];
  for (const key of CONFIG_KEYS) {
    const v = news[key];
    if (v === UNKNOWN) continue;
    if (v !== undefined && typeof v !== "string") {
      failures.push({ property: key, reason: `cws:${key} must be a string` });
      continue;
    }
    if (!str(v) && !env[CONFIG_ENV[key]]) {
      failures.push({
        property: key,
        reason: `cws:${key} is not set (nor ${CONFIG_ENV[key]}): \`pulumi config set ${key === "apiToken" ? "--secret " : ""}cws:${key} ...\``,
      });
    }
  }
  const url = str(news.baseUrl) ?? (news.baseUrl === undefined ? env[CONFIG_ENV.baseUrl] : undefined);
  if (url && url !== UNKNOWN) {
    let ok = false;
    try {
      ok = ["http:", "https:"].includes(new URL(url).protocol);
    } catch {
      ok = false;
    }
    if (!ok) {
      failures.push({
        property: "baseUrl",
        reason: `cws:baseUrl must be an http(s) URL including /v3, e.g. https://api.example.com/v3`,
      });
    }
  }
  return failures;
}

/** Provider config from Configure's arguments (or its variables map, `cws:config:<key>`). */
export function configFrom(args: Props, variables: Map<string, string>): ProviderConfig {
  const lookup = (configKey: string) => {
    const key = configKey.replace(/^cws:/, "");
    const fromArgs = str(args[key]);
    if (fromArgs) return fromArgs;
    for (const name of [`cws:config:${key}`, `cws:${key}`]) {
      const v = variables.get(name);
      if (v !== undefined) return v;
    }
    return undefined;
  };
  return resolveConfig(lookup);
}
