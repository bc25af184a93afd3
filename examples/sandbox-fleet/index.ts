/**
 * A sandbox fleet: a base sandbox from a platform template, a fork of it, a template published
 * from it with a sandbox started from that template, and a frozen sandbox kept for later
 * (processes stopped, files kept, billed at the frozen rate).
 */
import * as pulumi from "@pulumi/pulumi";
import { Sandbox, SandboxTemplate } from "pulumi-cws/sdk";

export default async function program() {
  const config = new pulumi.Config();
  const template = config.get("template") ?? "tpl-ubuntu-headless";

  const base = new Sandbox("base", {
    name: "base",
    template,
    ports: [{ port: 8000 }],
    ttlSec: 3600,
    idleTimeoutSec: 900,
  });

  // The fork starts with a copy of the base sandbox's files.
  const worker = new Sandbox("worker", { name: "worker", forkFrom: base.uid, ttlSec: 3600 });

  // Publish the base sandbox's files as a template, and start a sandbox from it.
  const golden = new SandboxTemplate("golden", {
    name: "golden-image",
    sourceSandbox: base.uid,
    displayName: "Golden image",
    description: "base sandbox snapshot",
  });
  const fromGolden = new Sandbox("from-golden", { name: "from-golden", template: golden.uid });

  const parked = new Sandbox("parked", {
    name: "parked",
    template,
    frozen: config.getBoolean("parkedFrozen") ?? true,
  });

  return {
    base: { uid: base.uid, status: base.status, costPerHour: base.costPerHour },
    worker: { uid: worker.uid, parent: worker.parentUid, status: worker.status },
    golden: { uid: golden.uid, status: golden.status },
    fromGolden: { uid: fromGolden.uid, status: fromGolden.status },
    parked: { uid: parked.uid, status: parked.status, frozenCostPerHour: parked.frozenCostPerHour },
  };
}
