/* eslint-disable @typescript-eslint/no-explicit-any */
// SSH keys through the API (SshKeyService in server/ssh-keys/service.ts).
import { describe, expect, it } from "vitest";
import { SshKey } from "../../api/index.ts";
import { call, expectError } from "../helpers/http.ts";
import { useTestServer } from "../helpers/server.ts";
import { createSshKey, PUBLIC_KEY } from "./fixtures.ts";

const s = useTestServer({ each: "reset" });

describe("SSH keys", () => {
  it("creates, reads, renames, lists and deletes a key", async () => {
    const c = await call(s, "POST", "/orgs/demo/ssh-keys", { name: "laptop", ssh_key: PUBLIC_KEY });
    expect(c.status).toBe(201);
    const k = SshKey.parse(c.body);
    expect(k.public_key_raw).toBe(PUBLIC_KEY);
    expect((await call(s, "PATCH", `/orgs/demo/ssh-keys/${k.uid}`, { name: "desk" })).body.name).toBe("desk");
    expect((await call(s, "GET", `/orgs/demo/ssh-keys/${k.uid}`)).body.name).toBe("desk");
    expect((await call(s, "GET", "/orgs/demo/ssh-keys")).body).toMatchObject({
      items: [{ uid: k.uid }],
      next_cursor: null,
    });
    expect((await call(s, "DELETE", `/orgs/demo/ssh-keys/${k.uid}`)).status).toBe(204);
    expectError(await call(s, "GET", `/orgs/demo/ssh-keys/${k.uid}`), 404, "SSH_KEY_NOT_FOUND");
    expectError(
      await call(s, "PATCH", `/orgs/demo/ssh-keys/${k.uid}`, { name: "x" }),
      404,
      "SSH_KEY_NOT_FOUND",
    );
  });

  it.each([
    ["not a key", "ssh_key"],
    ["ssh-dss AAAAB3NzaC1kc3MAAACBAP", "type"],
    ["ssh-ed25519 !!!notbase64", "base64"],
    ["ssh-rsa AAAAC3NzaC1lZDI1NTE5AAAAIGb4dRmOOf0YDzJQwN7nFC0mQfqlk8hZwd2hzNs5nvGx", "ssh-rsa"],
  ])("refuses the public key %j with 400 SSH_KEY_INVALID", async (key, words) => {
    expect(
      expectError(
        await call(s, "POST", "/orgs/demo/ssh-keys", { name: "k", ssh_key: key }),
        400,
        "SSH_KEY_INVALID",
      ),
    ).toContain(words);
  });

  it("pages keys and refuses a bad limit", async () => {
    for (let i = 0; i < 5; i++) await createSshKey(s, `k${i}`);
    const p = await call(s, "GET", "/orgs/demo/ssh-keys?limit=2");
    expect(p.body.items).toHaveLength(2);
    const p2 = await call(s, "GET", `/orgs/demo/ssh-keys?limit=2&cursor=${p.body.next_cursor}`);
    const p3 = await call(s, "GET", `/orgs/demo/ssh-keys?limit=2&cursor=${p2.body.next_cursor}`);
    expect(p3.body.items.map((k: any) => k.name)).toEqual(["k4"]);
    expect(p3.body.next_cursor).toBeNull();
    expectError(await call(s, "GET", "/orgs/demo/ssh-keys?limit=0"), 400, "INVALID_QUERY");
  });
});
