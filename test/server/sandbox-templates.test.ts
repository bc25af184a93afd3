/* eslint-disable @typescript-eslint/no-explicit-any */
// Sandbox templates through the API (SandboxTemplateService in server/templates/sandbox-templates.ts).
import { describe, expect, it } from "vitest";
import { SandboxTemplate } from "../../api/index.ts";
import { call, expectError } from "../helpers/http.ts";
import { useTestServer } from "../helpers/server.ts";
import { putSandboxTemplate } from "./fixtures.ts";

const s = useTestServer({ each: "reset" });

describe("sandbox templates", () => {
  const addUser = (
    status: "PENDING" | "READY" | "FAILED",
    org = "demo",
    uid = `stpl-${status.toLowerCase()}-${org}`,
  ) => putSandboxTemplate(s, { uid, org, status });

  it("lists FRESH READY templates with kind and status filters", async () => {
    addUser("PENDING");
    addUser("READY", "other");
    const all = await call(s, "GET", "/orgs/demo/sandbox-templates");
    const items = all.body.items.map((t: unknown) => SandboxTemplate.parse(t));
    expect(items.map((t: any) => t.uid)).toEqual([
      "tpl-ubuntu-headless",
      "tpl-ubuntu-desktop",
      "stpl-pending-demo",
    ]);
    expect(all.text).not.toContain('desktop":');
    expect(
      (await call(s, "GET", "/orgs/demo/sandbox-templates?kind=USER")).body.items.map((t: any) => t.uid),
    ).toEqual(["stpl-pending-demo"]);
    expect((await call(s, "GET", "/orgs/demo/sandbox-templates?status=READY")).body.items).toHaveLength(2);
    const p = await call(s, "GET", "/orgs/demo/sandbox-templates?limit=2");
    const rest = await call(s, "GET", `/orgs/demo/sandbox-templates?cursor=${p.body.next_cursor}`);
    expect(rest.body.items.map((t: any) => t.uid)).toEqual(["stpl-pending-demo"]);
    expectError(await call(s, "GET", "/orgs/demo/sandbox-templates?kind=OLD"), 400, "INVALID_QUERY");
    expectError(
      await call(s, "GET", "/orgs/demo/sandbox-templates/stpl-ready-other"),
      404,
      "SANDBOX_TEMPLATE_NOT_FOUND",
    );
  });

  it("patches USER templates only; FRESH gives 403", async () => {
    const u = addUser("READY");
    const p = await call(s, "PATCH", `/orgs/demo/sandbox-templates/${u}`, { display_name: "Mine" });
    expect(p.body.display_name).toBe("Mine");
    expectError(
      await call(s, "PATCH", `/orgs/demo/sandbox-templates/${u}`, {}),
      400,
      "SANDBOX_TEMPLATE_INVALID",
    );
    expectError(
      await call(s, "PATCH", `/orgs/demo/sandbox-templates/${u}`, { display_name: "x".repeat(129) }),
      400,
      "SANDBOX_TEMPLATE_INVALID",
    );
    expectError(
      await call(s, "PATCH", "/orgs/demo/sandbox-templates/tpl-ubuntu-headless", { description: "x" }),
      403,
      "SANDBOX_TEMPLATE_READ_ONLY",
    );
  });

  it("deletes USER templates, not PENDING ones (409) nor FRESH ones (403)", async () => {
    const pending = addUser("PENDING");
    const ready = addUser("READY");
    expectError(
      await call(s, "DELETE", `/orgs/demo/sandbox-templates/${pending}`),
      409,
      "SANDBOX_TEMPLATE_PENDING",
    );
    expectError(
      await call(s, "DELETE", "/orgs/demo/sandbox-templates/tpl-ubuntu-headless"),
      403,
      "SANDBOX_TEMPLATE_READ_ONLY",
    );
    expect((await call(s, "DELETE", `/orgs/demo/sandbox-templates/${ready}`)).status).toBe(204);
    expectError(
      await call(s, "GET", `/orgs/demo/sandbox-templates/${ready}`),
      404,
      "SANDBOX_TEMPLATE_NOT_FOUND",
    );
  });
});
