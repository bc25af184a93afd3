import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Sandbox, SshKey, Volume, Workload, WorkloadTemplate } from "../../../sdk/index.ts";
import type { OfflineStack } from "../../../scripts/offline-stack.ts";
import { startTestServer, type TestServer } from "../../helpers/server.ts";
import { cwsStack, liveResources } from "../../helpers/stacks.ts";
import { launchChromium } from "./chromium.ts";

const PUBLIC_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGb4dRmOOf0YDzJQwN7nFC0mQfqlk8hZwd2hzNs5nvGx ci@cws";

function program() {
  const key = new SshKey("key", { name: "ci-deploy", publicKey: PUBLIC_KEY });
  const data = new Volume("data", { name: "web-data", sizeInMb: 2048, resourceName: "gpu-rental-small" });
  const web = new Workload("web", {
    type: "RENTAL",
    name: "web",
    image: "nginx:1.27",
    resourceName: "gpu-rental-small",
    ports: [{ port: 8080 }],
    sshKeys: [key.uid],
    volumes: [{ uid: data.uid, mountPath: "/data" }],
  });
  new WorkloadTemplate("tpl", {
    name: "web-template",
    type: "RENTAL",
    manifest: { name: "web", image: "nginx:1.27", resourceName: "gpu-rental-small" },
  });
  const box = new Sandbox("box", {
    name: "scratch",
    template: "tpl-ubuntu-headless",
    ports: [{ port: 8000 }],
  });
  return Promise.resolve({ webUid: web.uid, boxUid: box.uid });
}

describe("dashboard in a real browser", () => {
  let server: TestServer;
  let s: OfflineStack;
  let browser: BrowserContext;
  let page: Page;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "cws-dashboard-"));
    // Deploys stay provisioning for 2 s, so the page can be seen catching the change.
    server = await startTestServer({ provisionDelayMs: 2000 });
    s = await cwsStack(server, "dashboard", program);
    ({ browser, page } = await launchChromium(dir));
  });
  afterAll(async () => {
    await browser?.close();
    await s?.cleanup();
    await server?.close();
    if (dir) rmSync(join(dir, "profile"), { recursive: true, force: true });
  });

  it("asks for a token first and refuses a wrong one", async () => {
    await page.goto(server.origin);
    await expect.poll(() => page.isVisible("#login")).toBe(true);
    expect(await page.isVisible("#app")).toBe(false);
    const data = await fetch(`${server.origin}/dashboard/api/orgs/demo`);
    expect(data.status).toBe(401);
    await page.fill("#token", "not-a-token");
    await page.click("#login-form button[type=submit]");
    await page.waitForSelector("#login-error:has-text('refused')");
    expect(await page.isVisible("#app")).toBe(false);
  });

  it("shows a stack's workload appear and turn running while pulumi up runs", async () => {
    await page.fill("#token", "demo-token");
    await page.click("#login-form button[type=submit]");
    await page.waitForSelector("#app:not([hidden])");
    expect(await page.textContent("#orgs")).toBe("demo");

    const up = s.stack.up();
    const row = '#workloads tr[data-name="web"]';
    await page.waitForSelector(`${row} [data-status="provisioning"]`, { timeout: 90_000 });
    await page.waitForSelector(`${row} [data-status="running"]`, { timeout: 60_000 });
    const result = await up;
    expect(result.summary.result).toBe("succeeded");

    const uid = result.outputs.webUid.value as string;
    expect(await page.getAttribute(row, "data-uid")).toBe(uid);
    const text = await page.textContent(row);
    expect(text).toContain("nginx:1.27");
    expect(text).toContain("$0.800"); // gpu-rental-small, USD per hour
    expect(text).toContain(`http://${uid}-8080.rental.cws.local`);
    await page.waitForSelector('#sandboxes tr[data-name="scratch"] [data-status="running"]');
    await page.waitForSelector('#volumes tr[data-name="web-data"] [data-status="running"]');
    await page.waitForSelector('#keys tr[data-name="ci-deploy"]');
    await page.waitForSelector('#templates tr[data-name="web-template"]');
    await page.waitForSelector('#sandbox-templates tr[data-uid="tpl-ubuntu-headless"]');

    // The workload's events and logs.
    await page.click(row);
    await page.waitForSelector('#events [data-status="running"]');
    await page.waitForSelector("#logs:has-text('listening on 0.0.0.0:8080/tcp')");
    expect(await page.textContent("#events")).toContain("STATUS_CHANGE");

    const shot = join(dir, "dashboard.png");
    await page.screenshot({ path: shot, fullPage: true });
    console.log(`dashboard screenshot: ${shot}`);

    // Read-only: the page changed nothing the stack did not make.
    const live = await liveResources(server);
    expect(live.workloads.map((w) => w.name).sort()).toEqual(["scratch", "web"]);
  });

  it("sees a destroy empty the page", async () => {
    const destroyed = await s.stack.destroy();
    expect(destroyed.summary.result).toBe("succeeded");
    await page.waitForSelector("#workloads .empty");
    await page.waitForSelector("#sandboxes .empty");
    expect(await page.textContent("#count-volumes")).toBe("0");
  });
});
