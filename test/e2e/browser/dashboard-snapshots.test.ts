// The dashboard's Snapshots card (server/dashboard/public/app.js), in Debian's Chromium: the
// admin saves the state under a name, restores it after a change (the page shows the state
// before the change again), and deletes it; an org's token does not see the card.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "../../helpers/http.ts";
import { startTestServer, type TestServer } from "../../helpers/server.ts";
import { launchChromium } from "./chromium.ts";

const rental = (name: string) => ({
  type: "RENTAL",
  name,
  image: "nginx:1.27",
  resource_name: "gpu-rental-small",
});

describe("dashboard snapshots", () => {
  let server: TestServer;
  let browser: BrowserContext;
  let page: Page;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "cws-dashboard-snapshots-"));
    server = await startTestServer();
    ({ browser, page } = await launchChromium(dir));
    page.on("dialog", (d) => void d.accept());
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("saves, restores and deletes the whole state from the admin's page", async () => {
    await api(server, "POST", "/orgs/demo/workloads", rental("kept"));
    await page.goto(server.origin);
    await page.fill("#token", "admin-token");
    await page.click("#login-form button[type=submit]");
    await page.waitForSelector("#snapshots-card:not([hidden]) #snapshots .empty");

    await page.fill("#snapshot-name", "before-change");
    await page.click("#snapshot-form button[type=submit]");
    await page.waitForSelector("#snapshot-status:has-text('Saved before-change')");
    await page.waitForSelector('#snapshots tr[data-name="before-change"]');

    await api(server, "POST", "/orgs/demo/workloads", rental("added"));
    await page.waitForSelector('#workloads tr[data-name="added"]');
    await page.click('#snapshots tr[data-name="before-change"] button[data-action="restore"]');
    await page.waitForSelector("#snapshot-status:has-text('Restored before-change in')");
    await page.waitForSelector('#workloads tr[data-name="added"]', { state: "detached" });
    expect(await page.isVisible('#workloads tr[data-name="kept"]')).toBe(true);

    await page.click('#snapshots tr[data-name="before-change"] button[data-action="delete"]');
    await page.waitForSelector("#snapshots .empty");
    expect(await page.textContent("#count-snapshots")).toBe("0");

    // A bad name: the server's message, and nothing saved.
    await page.fill("#snapshot-name", "-bad");
    await page.click("#snapshot-form button[type=submit]");
    await page.waitForSelector("#snapshot-status.error:has-text('snapshot name must be')");

    // An org's token: no snapshot controls.
    await page.click("#signout");
    await page.fill("#token", "demo-token");
    await page.click("#login-form button[type=submit]");
    await page.waitForSelector("#app:not([hidden])");
    expect(await page.isVisible("#snapshots-card")).toBe(false);
  });
});
