/** The front ends' settings (provider/frontend/): one rule for them, said in each tool's words. */
import { describe, expect, it } from "vitest";
import { baseUrlProblem, resolveSettings } from "../../../provider/frontend/settings.ts";
import { stackSettings } from "../../../provider/frontend/stack-config.ts";
import { checkConfig } from "../../../provider/native/provider-config.ts";
import { validateProviderBlock } from "../../../provider/opentofu/provider-config.ts";

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
