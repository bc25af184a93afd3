/** Debian's Chromium (scripts/setup-tests.sh installs it), headless, as the dashboard tests drive it. */
import { join } from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";

const CHROMIUM = "/usr/bin/chromium";
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** Chromium with its profile under `dir`, and its first page. */
export async function launchChromium(dir: string): Promise<{ browser: BrowserContext; page: Page }> {
  const browser = await chromium.launchPersistentContext(join(dir, "profile"), {
    executablePath: CHROMIUM,
    args: CHROMIUM_ARGS,
    headless: true,
    viewport: { width: 1400, height: 1000 },
  });
  return { browser, page: browser.pages()[0] ?? (await browser.newPage()) };
}
