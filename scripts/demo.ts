/**
 * The demo: starts the embedded reference server, deploys examples/rental-service with the real
 * Pulumi engine (live progress), prints a summary, shows a drift check (a change made through the
 * API is found by refresh and reverted by up), then destroys everything and checks that nothing
 * is left on the server. Exits non-zero if any step fails.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CwsClient } from "../client/index.ts";
import program from "../examples/rental-service/index.ts";
import { startServer } from "../server/index.ts";
import { offlineStack } from "./offline-stack.ts";

const bold = (s: string) => (process.stdout.isTTY ? `\x1b[1m${s}\x1b[0m` : s);
const step = (n: number, title: string) => console.log(`\n${bold(`== ${n}/6 ${title}`)}`);
const out = (s: string) => process.stdout.write(s);

interface StateResource {
  type: string;
  id?: string;
  urn: string;
  outputs?: Record<string, unknown>;
}

async function resourcesOf(
  stack: Awaited<ReturnType<typeof offlineStack>>["stack"],
): Promise<StateResource[]> {
  const state = await stack.exportStack();
  return ((state.deployment.resources ?? []) as StateResource[]).filter((r) =>
    r.type.startsWith("pulumi-nodejs:dynamic/cws:"),
  );
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((c, i) => c.padEnd(widths[i]!)).join("  ")).join("\n");
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), "cws-demo-"));
  const server = await startServer({ port: 0, dataDir, provisionDelayMs: 1500 });
  const client = new CwsClient({ baseUrl: server.baseUrl, org: "demo", token: "demo-token" });
  const s = await offlineStack({
    projectName: "cws-demo",
    program,
    config: {
      "cws:baseUrl": { value: server.baseUrl },
      "cws:org": { value: "demo" },
      "cws:apiToken": { value: "demo-token", secret: true },
      registryPassword: { value: "demo-registry-token", secret: true },
    },
  });
  try {
    console.log(`reference server: ${server.baseUrl} (org demo, state in ${dataDir})`);

    step(1, "pulumi up: examples/rental-service");
    await s.stack.up({ onOutput: out, color: "auto" });

    step(2, "what was deployed");
    const rows = [["KIND", "NAME", "UID", "STATUS", "COST/H", "URLS"]];
    for (const r of await resourcesOf(s.stack)) {
      const o = r.outputs ?? {};
      const urls = ((o.urls as { url: string }[] | undefined) ?? []).map((u) => u.url).join(" ");
      const cost = typeof o.costPerHour === "number" ? `$${o.costPerHour.toFixed(2)}` : "";
      rows.push([
        r.type.split(":").pop()!,
        String(o.name ?? ""),
        String(r.id ?? ""),
        String(o.status ?? "-"),
        cost,
        urls,
      ]);
    }
    console.log(table(rows));

    step(3, "drift: change the workload's image through the API, then pulumi refresh");
    const web = (await resourcesOf(s.stack)).find((r) => r.type.endsWith(":Workload"))!;
    const before = String(web.outputs?.image);
    await client.workloads.update(web.id!, { image: "nginx:1.27-alpine" });
    console.log(`PATCH image ${before} -> nginx:1.27-alpine (outside Pulumi)`);
    const refresh = await s.stack.refresh({ onOutput: out });
    const after = (await resourcesOf(s.stack)).find((r) => r.id === web.id)!;
    const drifted = refresh.summary.resourceChanges?.update ?? 0;
    console.log(
      `\nrefresh found ${drifted} drifted resource(s): image in state is now ${String(after.outputs?.image)}`,
    );
    if (drifted < 1 || after.outputs?.image !== "nginx:1.27-alpine")
      throw new Error("refresh did not report the drift");

    step(4, "pulumi up: put the program's image back");
    await s.stack.up({ onOutput: out });
    const reverted = await client.workloads.get(web.id!);
    console.log(
      `service now runs ${reverted.image} (revision ${reverted.revision}, ${reverted.state.status})`,
    );
    if (reverted.image !== before)
      throw new Error(`up did not revert the image (service has ${reverted.image})`);

    step(5, "pulumi destroy");
    await s.stack.destroy({ onOutput: out });

    step(6, "check the server: nothing left");
    const res = await fetch(`${server.adminUrl}/orgs/demo/resources`, {
      headers: { authorization: "Bearer admin-token" },
    });
    const live = (await res.json()) as Record<string, unknown[]>;
    const left = Object.entries(live).filter(([, v]) => v.length > 0);
    if (left.length) throw new Error(`left on the server: ${JSON.stringify(left)}`);
    console.log("no workloads, volumes, SSH keys or templates left. Demo complete.");
  } finally {
    await client.close?.();
    await s.cleanup();
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(`\ndemo failed: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
