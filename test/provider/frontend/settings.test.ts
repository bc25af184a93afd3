/** The front ends' settings (provider/frontend/): one rule for them, said in each tool's words. */
import { describe, expect, it } from "vitest";
import { baseUrlProblem, resolveSettings } from "../../../provider/frontend/settings.ts";
import { stackSettings } from "../../../provider/frontend/stack-config.ts";
import { checkConfig, configFrom } from "../../../provider/native/provider-config.ts";
import { providerSettings, validateProviderBlock } from "../../../provider/opentofu/provider-config.ts";

describe("provider settings", () => {
  it("take the value given, else the CWS_* environment, and name the keys set nowhere", () => {
    const env = { CWS_ORG: "from-env", CWS_API_TOKEN: "" };
    expect(resolveSettings((k) => ({ baseUrl: "http://x/v3", apiToken: "t" })[k as string], env)).toEqual({
      settings: { baseUrl: "http://x/v3", org: "from-env", token: "t" },
    });
    expect(resolveSettings((k) => (k === "baseUrl" ? "" : undefined), env)).toEqual({
      missing: ["baseUrl", "apiToken"],
    });
    expect(stackSettings(() => undefined, {})).toEqual(
      new Error(
        "the cws provider is not configured: set cws:baseUrl (or CWS_BASE_URL), cws:org (or CWS_ORG), cws:apiToken (or CWS_API_TOKEN); e.g. `pulumi config set --secret cws:apiToken ...`",
      ),
    );
  });

  it("take an optional rate, a number or a string of one, each front end naming it in its words", () => {
    const given = { baseUrl: "http://x/v3", org: "o", apiToken: "t" };
    const base = { baseUrl: "http://x/v3", org: "o", token: "t" };
    expect(resolveSettings((k) => given[k as keyof typeof given], {})).toEqual({ settings: base });
    const withRate = (rate: string) => (k: string) => ({ ...given, maxRequestsPerSecond: rate })[k as "org"];
    expect(resolveSettings(withRate("2.5"), {})).toEqual({
      settings: { ...base, maxRequestsPerSecond: 2.5 },
    });
    expect(
      resolveSettings((k) => given[k as keyof typeof given], { CWS_MAX_REQUESTS_PER_SECOND: "40" }),
    ).toEqual({ settings: { ...base, maxRequestsPerSecond: 40 } });
    expect(resolveSettings(withRate("fast"), {})).toEqual({
      invalid: ["maxRequestsPerSecond"],
    });
    // Pulumi: the stack's config (strings), the plugin's provider inputs (numbers too).
    const stack = { "cws:baseUrl": "http://x/v3", "cws:org": "o", "cws:apiToken": "t" };
    expect(stackSettings((k) => ({ ...stack, "cws:maxRequestsPerSecond": "0" })[k], {})).toEqual(
      new Error(
        'the cws provider is not configured: cws:maxRequestsPerSecond must be a positive number of requests a second, e.g. 50 (got "0")',
      ),
    );
    expect(configFrom({ ...given, maxRequestsPerSecond: 20 }, new Map())).toEqual({
      ...base,
      maxRequestsPerSecond: 20,
    });
    expect(checkConfig({ ...given, maxRequestsPerSecond: -1 }, {})).toEqual([
      {
        property: "maxRequestsPerSecond",
        reason: "cws:maxRequestsPerSecond must be a positive number of requests a second, e.g. 50 (got -1)",
      },
    ]);
    expect(checkConfig(given, {})).toEqual([]);
    // OpenTofu: the provider block's number.
    const block = { endpoint: "http://x/v3", org: "o", api_token: "t", max_requests_per_second: 20 };
    expect(providerSettings(block, {}).settings).toEqual({ ...base, maxRequestsPerSecond: 20 });
    expect(validateProviderBlock({ ...block, max_requests_per_second: 0 }).map((d) => d.detail)).toEqual([
      "max_requests_per_second must be a positive number of requests a second, e.g. 50 (got 0)",
    ]);
    expect(providerSettings({ ...block, max_requests_per_second: null }, {}).settings).toEqual(base);
  });

  it("take how long a service that cannot be reached is tried, in seconds, in each tool's words", () => {
    const given = { baseUrl: "http://x/v3", org: "o", apiToken: "t" };
    const base = { baseUrl: "http://x/v3", org: "o", token: "t" };
    expect(
      resolveSettings((k) => given[k as keyof typeof given], { CWS_UNREACHABLE_TIMEOUT_SEC: "5" }),
    ).toEqual({ settings: { ...base, unreachableTimeoutSec: 5 } });
    expect(configFrom({ ...given, unreachableTimeoutSec: 3 }, new Map())).toEqual({
      ...base,
      unreachableTimeoutSec: 3,
    });
    expect(checkConfig({ ...given, unreachableTimeoutSec: "soon" }, {})).toEqual([
      {
        property: "unreachableTimeoutSec",
        reason: 'cws:unreachableTimeoutSec must be a positive number of seconds, e.g. 20 (got "soon")',
      },
    ]);
    const block = { endpoint: "http://x/v3", org: "o", api_token: "t", unreachable_timeout_sec: 0 };
    expect(validateProviderBlock(block).map((d) => d.detail)).toEqual([
      "unreachable_timeout_sec must be a positive number of seconds, e.g. 20 (got 0)",
    ]);
    expect(providerSettings({ ...block, unreachable_timeout_sec: 7 }, {}).settings).toEqual({
      ...base,
      unreachableTimeoutSec: 7,
    });
  });

  it("hold a base URL to one rule, which both protocols say with their own name for it", () => {
    expect(baseUrlProblem("x", "https://api.example.com/v3")).toBeUndefined();
    expect(baseUrlProblem("x", "http://127.0.0.1:8080/v3")).toBeUndefined();
    for (const bad of ["api.example.com", "ftp://api.example.com/v3", "http://"]) {
      const rule = baseUrlProblem("NAME", bad)!;
      expect(rule).toBe(
        `NAME must be an http(s) URL including /v3, e.g. https://api.example.com/v3 (got "${bad}")`,
      );
      const native = checkConfig({ baseUrl: bad, org: "o", apiToken: "t" }, {});
      expect(native).toEqual([{ property: "baseUrl", reason: rule.replace("NAME", "cws:baseUrl") }]);
      const tofu = validateProviderBlock({ endpoint: bad, org: null, api_token: null });
      expect(tofu.map((d) => d.detail)).toEqual([rule.replace("NAME", "endpoint")]);
    }
  });
});
