// Running sandboxes and snapshots of the server state (server/admin/service.ts restoreSnapshot,
// the sandbox service's onRestore and afterRestore hooks): a restore stops every running
// sandbox; a sandbox the snapshot saw running comes back in error, and deploys again.
import { describe, expect, it } from "vitest";
import { admin, call } from "../../helpers/http.ts";
import { useTestServer } from "../../helpers/server.ts";
import { deploySandbox, hostPidsWith, sb, sh, waitState } from "./fixtures.ts";

const s = useTestServer({ sandboxRoot: true });

describe("snapshots and running sandboxes", () => {
  it("a restore stops every sandbox; those the snapshot saw running come back in error and deploy again", async () => {
    const saved = await deploySandbox(s);
    await sh(s, saved, "echo before > /tmp/mark && sleep 4567890 >/dev/null 2>&1 &");
    await admin(s, "PUT", "/snapshots/with-sandbox");
    const later = await deploySandbox(s);
    await sh(s, later, "sleep 4567891 >/dev/null 2>&1 &");
    expect(hostPidsWith("sleep 456789").length).toBe(2);

    await admin(s, "POST", "/snapshots/with-sandbox/restore");
    // Both environments are gone: the one started after the snapshot, and the snapshot's own.
    expect(hostPidsWith("sleep 456789")).toEqual([]);
    expect((await call(s, "GET", sb(later))).status).toBe(404);
    const st = (await call(s, "GET", sb(saved, "state"))).body;
    expect(st).toMatchObject({ status: "error" });
    expect(st.message).toBe(
      "a snapshot holds the sandbox's record, not its environment (files, processes); deploy it again",
    );
    const events = (await call(s, "GET", sb(saved, "events"))).body.items;
    expect(events.at(-1)).toMatchObject({ reason: "SandboxNotRestored", new_status: "error" });

    // Deployed again, it is a fresh sandbox of its template.
    expect((await call(s, "POST", sb(saved, "deploy"))).status).toBe(200);
    await waitState(s, saved, "running");
    expect(await sh(s, saved, "cat /tmp/mark 2>/dev/null || echo fresh")).toBe("fresh\n");
  });
});
