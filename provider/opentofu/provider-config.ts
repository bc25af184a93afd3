/**
 * The provider block (`provider "cws" { endpoint, org, api_token, ... }`): the settings
 * (frontend/settings.ts) under their HCL names, each falling back to its CWS_* environment
 * variable. ValidateProviderConfig holds the endpoint to the one URL rule; ConfigureProvider makes
 * the settings, or the diagnostics that say which attribute is unknown or missing.
 */
import {
  NUMBER_SETTING_KEYS,
  SETTINGS,
  SETTING_KEYS,
  baseUrlProblem,
  resolveSettings,
  settingProblem,
  type Settings,
} from "../frontend/settings.ts";
import { errorDiag, type Diagnostic } from "./diagnostics.ts";
import { UNKNOWN_VALUE, type TfObject } from "./msgpack.ts";
import { HCL_SETTING_NAMES } from "./tf-schema.ts";

/** The diagnostics of a provider block's values: an endpoint that is not an http(s) URL, a number setting that is not positive. */
export function validateProviderBlock(block: TfObject | null): Diagnostic[] {
  const name = HCL_SETTING_NAMES.baseUrl;
  const url = block?.[name];
  const problem = typeof url === "string" ? baseUrlProblem(name, url) : undefined;
  const numbers = NUMBER_SETTING_KEYS.flatMap((key) => {
    const n = HCL_SETTING_NAMES[key];
    const v = block?.[n];
    const wrong = typeof v === "number" ? settingProblem(key, n, v, {}) : undefined;
    return wrong ? [errorDiag(`Invalid value for ${n}`, wrong, n)] : [];
  });
  return [...(problem ? [errorDiag(`Invalid value for ${name}`, problem, name)] : []), ...numbers];
}

/** The settings of a provider block, or the diagnostics that say what is unknown or missing. */
export function providerSettings(
  block: TfObject | null,
  env: NodeJS.ProcessEnv = process.env,
): { settings?: Settings; diagnostics: Diagnostic[] } {
  const resolved = resolveSettings((key) => block?.[HCL_SETTING_NAMES[key]], env);
  const missing = "missing" in resolved ? resolved.missing : [];
  const invalid = "invalid" in resolved ? resolved.invalid : [];
  const diagnostics: Diagnostic[] = [];
  for (const key of SETTING_KEYS) {
    const name = HCL_SETTING_NAMES[key];
    if (block?.[name] === UNKNOWN_VALUE) {
      diagnostics.push(
        errorDiag(`Unknown value for ${name}`, `${name} depends on a value not known until apply`, name),
      );
    } else if (invalid.includes(key)) {
      const problem = settingProblem(key, name, block?.[name], env)!;
      diagnostics.push(errorDiag(`Invalid value for ${name}`, problem, name));
    } else if (missing.includes(key)) {
      diagnostics.push(
        errorDiag(
          `Missing ${name}`,
          `set ${name} in the provider "cws" block or the ${SETTINGS[key].env} environment variable`,
          name,
        ),
      );
    }
  }
  if (diagnostics.length || !("settings" in resolved)) return { diagnostics };
  return { settings: resolved.settings, diagnostics };
}
