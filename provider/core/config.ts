/**
 * Provider configuration: stack config `cws:baseUrl`, `cws:org`, `cws:apiToken` (a secret),
 * with the environment fallbacks CWS_BASE_URL, CWS_ORG and CWS_API_TOKEN.
 */
export interface ProviderConfig {
  baseUrl: string;
  org: string;
  token: string;
}

export type ConfigSource = (key: string) => string | undefined;

/** The environment variable each provider setting falls back to, by the setting's name. */
export const CONFIG_ENV = { baseUrl: "CWS_BASE_URL", org: "CWS_ORG", apiToken: "CWS_API_TOKEN" } as const;

const KEYS = {
  baseUrl: ["cws:baseUrl", CONFIG_ENV.baseUrl],
  org: ["cws:org", CONFIG_ENV.org],
  token: ["cws:apiToken", CONFIG_ENV.apiToken],
} as const;

export function resolveConfig(stack: ConfigSource, env: NodeJS.ProcessEnv = process.env): ProviderConfig {
  const missing: string[] = [];
  const get = (k: keyof typeof KEYS) => {
    const [configKey, envKey] = KEYS[k];
    const v = stack(configKey) ?? env[envKey];
    if (!v) missing.push(`${configKey} (or ${envKey})`);
    return v ?? "";
  };
  const cfg = { baseUrl: get("baseUrl"), org: get("org"), token: get("token") };
  if (missing.length) {
    throw new Error(
      `the cws provider is not configured: set ${missing.join(", ")}; e.g. \`pulumi config set --secret cws:apiToken ...\``,
    );
  }
  return cfg;
}
