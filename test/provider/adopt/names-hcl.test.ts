/** The names adopted resources get, their order, and the HCL text they are written in. */
import { describe, expect, it } from "vitest";
import { dependencyOrder } from "../../../provider/adopt/graph.ts";
import { Expr, hclBlock, hclString } from "../../../provider/adopt/hcl.ts";
import type { Adopted } from "../../../provider/adopt/inventory.ts";
import { hclName, pulumiName, uniqueNames } from "../../../provider/adopt/names.ts";

const obj = (kind: string, name: string, uid: string, inputs = {}, createdAt = "2026-01-01"): Adopted => ({
  kind,
  name,
  uid,
  createdAt,
  inputs,
});

describe("names", () => {
  it("are identifiers in every language: the kind first, then the name's words", () => {
    expect(pulumiName(obj("Workload", "web-api", "a"))).toBe("workloadWebApi");
    expect(pulumiName(obj("SshKey", "1st", "a"))).toBe("sshKey1st");
    expect(pulumiName(obj("SandboxTemplate", "my.env_v2", "a"))).toBe("sandboxTemplateMyEnvV2");
    // `class`, `default`, `import`, `type` are keywords somewhere; prefixed, they are not.
    for (const n of ["class", "default", "import", "type", "None", "func"])
      expect(pulumiName(obj("Volume", n, "a"))).toMatch(/^volume[A-Z]/);
  });

  it("in HCL are snake_case, with the kind when the name does not start with a letter", () => {
    expect(hclName(obj("Workload", "web-api", "a"))).toBe("web_api");
    expect(hclName(obj("SandboxTemplate", "MyEnv.v2", "a"))).toBe("my_env_v2");
    expect(hclName(obj("SshKey", "1st", "a"))).toBe("ssh_key_1st");
  });

  it("are unique and given in a fixed order: name, creation time, uid", () => {
    const objects = [
      obj("Workload", "web", "wl-b", {}, "2026-01-02"),
      obj("Workload", "web-2", "wl-c"),
      obj("Workload", "web", "wl-a", {}, "2026-01-01"),
      obj("Volume", "web", "vol-a"),
    ];
    const names = uniqueNames(objects, pulumiName, "");
    expect(Object.fromEntries(names)).toEqual({
      "wl-a": "workloadWeb",
      "wl-b": "workloadWeb2",
      "wl-c": "workloadWeb22",
      "vol-a": "volumeWeb",
    });
    const reversed = uniqueNames([...objects].reverse(), pulumiName, "");
    expect(Object.fromEntries(reversed)).toEqual(Object.fromEntries(names));
    // OpenTofu names are unique per resource type.
    const hcl = uniqueNames(objects, hclName, "_", (o) => o.kind);
    expect(Object.fromEntries(hcl)).toEqual({
      "wl-a": "web",
      "wl-b": "web_2",
      "wl-c": "web_2_2",
      "vol-a": "web",
    });
  });
});

describe("order", () => {
  it("puts every object after the ones it refers to, else by kind and name", () => {
    const key = obj("SshKey", "k", "key-1");
    const parent = obj("Sandbox", "zz-parent", "wl-p", { sshKeys: ["key-1"] });
    const fork = obj("Sandbox", "aa-fork", "wl-f", { forkFrom: "wl-p" });
    const tpl = obj("SandboxTemplate", "t", "tpl-1");
    const fromTpl = obj("Sandbox", "bb", "wl-t", { template: "tpl-1" });
    const order = dependencyOrder([fromTpl, fork, tpl, parent, key]).map((o) => o.uid);
    expect(order).toEqual(["key-1", "wl-p", "wl-f", "tpl-1", "wl-t"]);
  });
});

describe("HCL", () => {
  it("escapes what would end a string or start a template", () => {
    expect(hclString('a "b" \\ ${x} %{y}\nz')).toBe('"a \\"b\\" \\\\ $${x} %%{y}\\nz"');
  });

  it("aligns consecutive one-line attributes as tofu fmt does, and writes expressions as they are", () => {
    const text = hclBlock(
      "resource",
      ["cws_workload", "web"],
      [
        ["type", "RENTAL"],
        ["resource_name", "gpu-rental-small"],
        ["ports", [{ port: 8080, protocol: "TCP" }]],
        ["ssh_keys", [new Expr("cws_ssh_key.deploy.uid")]],
        ["experiments", { "reserved-gpu": true }],
      ],
    );
    expect(text).toBe(
      [
        'resource "cws_workload" "web" {',
        '  type          = "RENTAL"',
        '  resource_name = "gpu-rental-small"',
        "  ports = [",
        "    {",
        "      port     = 8080",
        '      protocol = "TCP"',
        "    },",
        "  ]",
        "  ssh_keys = [cws_ssh_key.deploy.uid]",
        "  experiments = {",
        '    "reserved-gpu" = true',
        "  }",
        "}",
        "",
      ].join("\n"),
    );
  });
});
