/**
 * The settings of the `cws` commands that talk to the service (`cws adopt`, `cws logs`, `cws list`,
 * ...), by the provider's rule (settings.ts): `--url` and `--org` over CWS_BASE_URL and CWS_ORG,
 * the API token from CWS_API_TOKEN only (never a flag, never printed). Each problem is said in the
 * command line's words, naming the flag or the variable to set.
 */
import { CwsClient, unreachableStatus } from "../../client/index.ts";
import {
  SETTINGS,
  baseUrlProblem,
  resolveSettings,
  settingProblem,
  type NumberSettingKey,
  type SettingKey,
  type Settings,
} from "./settings.ts";

/** The flags every such command takes for where the service is, for the command line's parser. */
export const SERVICE_FLAGS = {
  url: { type: "string" },
  org: { type: "string" },
} as const;

/** What a setting set nowhere is said as. */
const MISSING: Record<Exclude<SettingKey, NumberSettingKey>, string> = {
  baseUrl: `the service's URL is missing: set ${SETTINGS.baseUrl.env} or --url (e.g. https://cws.example.com/v3)`,
  org: `the org is missing: set ${SETTINGS.org.env} or --org`,
  apiToken: `the API token is missing: set ${SETTINGS.apiToken.env} (it is read from the environment only)`,
};

/** The parser's message of a bad flag, said as a command says it (a token flag is refused by name). */
export function flagProblem(parserMessage: string): string {
  return /'--(api-)?token'/.test(parserMessage)
    ? `the API token is read from ${SETTINGS.apiToken.env} only, never from a flag`
    : parserMessage;
}

/** The settings from `--url`/`--org` (as parsed) and the environment, or what is wrong with them. */
export function commandSettings(
  flags: { url?: string; org?: string },
  env: NodeJS.ProcessEnv,
): { settings: Settings } | { problem: string } {
  const given: Record<string, string | undefined> = { baseUrl: flags.url, org: flags.org };
  const resolved = resolveSettings((k) => given[k], env);
  if ("missing" in resolved) return { problem: MISSING[resolved.missing[0] as keyof typeof MISSING] };
  if ("invalid" in resolved) {
    const key = resolved.invalid[0]!;
    return { problem: settingProblem(key, SETTINGS[key].env, undefined, env)! };
  }
  const { baseUrl } = resolved.settings;
  const urlFrom = flags.url !== undefined ? "--url" : SETTINGS.baseUrl.env;
  const problem = baseUrlProblem(urlFrom, baseUrl);
  if (problem) return { problem };
  if (new URL(baseUrl).username || new URL(baseUrl).password)
    return { problem: `${urlFrom} must not carry credentials: the token goes in ${SETTINGS.apiToken.env}` };
  return resolved;
}

/** Why the service refused the command's token, with what to check. */
export function refusedTokenText(org: string, serviceMessage: string): string {
  return `the service refused the token for org '${org}' (${serviceMessage}): check ${SETTINGS.apiToken.env} and --org`;
}

/**
 * The client of a command: a service it cannot reach fails after CWS_UNREACHABLE_TIMEOUT_SEC
 * (default 20 s), naming --url, and each retry meanwhile is said on stderr with the time left.
 */
export function commandClient(settings: Settings, command: string, err: (text: string) => void): CwsClient {
  const { baseUrl, org, token, maxRequestsPerSecond, unreachableTimeoutSec } = settings;
  return new CwsClient({
    baseUrl,
    org,
    token,
    maxRequestsPerSecond,
    baseUrlSetting: `--url (or ${SETTINGS.baseUrl.env})`,
    ...(unreachableTimeoutSec !== undefined ? { unreachableTimeoutMs: unreachableTimeoutSec * 1000 } : {}),
    onRetry: (info) => info.unreachable && err(`cws ${command}: ${unreachableStatus(info.unreachable)}\n`),
  });
}
