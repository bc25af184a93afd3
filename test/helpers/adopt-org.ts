/**
 * An org made by hand through the API, as a team has one before it adopts it: every kind the
 * provider manages, in the states adoption must read back (attachments, suspended, frozen, a
 * fork, a published template and a sandbox made from it, BM with a region, VM and registry
 * passwords the service never returns), plus what is never adopted (a deleted workload).
 */
import { CwsClient } from "../../client/index.ts";
import type { ApiServer } from "./http.ts";
import { DEMO_TOKEN } from "./http.ts";

export const ADOPT_PUBLIC_KEY =
  "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGb4dRmOOf0YDzJQwN7nFC0mQfqlk8hZwd2hzNs5nvGx adopt@cws";
export const REGISTRY_PASSWORD = "adopt-registry-pass-3f1c";
export const VM_PASSWORD = "adopt-vm-pass-9b2d";
export const TEMPLATE_PASSWORD = "adopt-template-pass-77e0";

export interface HandMadeOrg {
  key: string;
  volume: string;
  web: string;
  batch: string;
  vm: string;
  bm: string;
  dev: string;
  fork: string;
  template: string;
  fromTemplate: string;
  workloadTemplate: string;
  deleted: string;
}

export function clientFor(server: ApiServer, org = "demo", token = DEMO_TOKEN): CwsClient {
  return new CwsClient({ baseUrl: server.baseUrl, org, token });
}

const WAIT = { timeoutMs: 120_000 };

/** Makes the org's objects through the API (nothing through the provider). */
export async function makeOrgByHand(server: ApiServer): Promise<HandMadeOrg> {
  const c = clientFor(server);
  const key = (await c.sshKeys.create({ name: "deploy", ssh_key: ADOPT_PUBLIC_KEY })).uid;
  const volume = (
    await c.volumes.create({ name: "data", size_in_mb: 512, resource_name: "gpu-rental-small" })
  ).uid;

  // A RENTAL workload with attachments (volume, key), a private registry and a project.
  const web = (
    await c.workloads.create({
      type: "RENTAL",
      name: "web",
      image: "registry.example.com/team/web:1.4",
      resource_name: "gpu-rental-small",
      envs: [{ name: "MODE", value: "prod" }],
      ports: [{ port: 8080 }],
      registry_auth: { server: "registry.example.com", username: "ci", password: REGISTRY_PASSWORD },
      ssh_keys: [key],
      volumes: [{ uid: volume, mount_path: "/data" }],
      project_id: "proj-shop",
    })
  ).uid;
  // A RENTAL workload deployed then suspended.
  const batch = (
    await c.workloads.create({
      type: "RENTAL",
      name: "batch",
      image: "busybox:1.36",
      resource_name: "gpu-rental-small",
      commands: ["sh", "-c"],
      args: ["sleep 3600"],
    })
  ).uid;
  const vm = (
    await c.workloads.create({
      type: "VM",
      name: "build-vm",
      image: "ubuntu-22.04",
      resource_name: "vm-standard",
      vm_config: { password: VM_PASSWORD },
      ports: [{ port: 2222, protocol: "TCP" }],
    })
  ).uid;
  const bm = (
    await c.workloads.create({
      type: "BM",
      name: "train",
      image: "ubuntu-22.04-cuda",
      resource_name: "bm-h100-8x",
      region: "us-east-1",
      ssh_keys: [key],
    })
  ).uid;
  for (const uid of [web, batch, vm, bm]) await c.workloads.deploy(uid);
  for (const uid of [web, batch, vm, bm]) await c.workloads.waitForStatus(uid, "running", WAIT);
  await c.workloads.suspend(batch);
  await c.workloads.waitForStatus(batch, "suspended", WAIT);

  // A sandbox, a fork of it, a template published from it and a frozen sandbox made from that.
  const dev = (
    await c.workloads.create({
      type: "SANDBOX",
      name: "dev",
      image: "tpl-ubuntu-headless",
      ports: [{ port: 8000 }],
      ssh_keys: [key],
      sandbox_config: { ttl_sec: 86_400 },
    })
  ).uid;
  await c.workloads.deploy(dev);
  await c.workloads.waitForStatus(dev, "running", WAIT);
  const fork = (await c.sandboxes.fork(dev, { name: "dev-copy" })).uid;
  await c.workloads.waitForStatus(fork, "running", WAIT);
  const template = (await c.sandboxes.publish(dev, { name: "team-env", display_name: "Team environment" }))
    .uid;
  await c.sandboxTemplates.waitForStatus(template, "READY", WAIT);
  const fromTemplate = (
    await c.workloads.create({ type: "SANDBOX", name: "review", image: template, sandbox_config: {} })
  ).uid;
  await c.workloads.deploy(fromTemplate);
  await c.workloads.waitForStatus(fromTemplate, "running", WAIT);
  await c.sandboxes.freeze(fromTemplate);
  await c.workloads.waitForStatus(fromTemplate, "frozen", WAIT);

  const workloadTemplate = (
    await c.templates.create({
      name: "web-template",
      description: "How we run web servers",
      type: "RENTAL",
      manifest: {
        type: "RENTAL",
        name: "web",
        image: "registry.example.com/team/web:1.4",
        resource_name: "gpu-rental-small",
        registry_auth: { server: "registry.example.com", username: "ci", password: TEMPLATE_PASSWORD },
      },
    })
  ).uid;

  // Gone: a deleted workload is never adopted.
  const deleted = (
    await c.workloads.create({
      type: "RENTAL",
      name: "old",
      image: "nginx:1.27",
      resource_name: "gpu-rental-small",
    })
  ).uid;
  await c.workloads.delete(deleted);

  return { key, volume, web, batch, vm, bm, dev, fork, template, fromTemplate, workloadTemplate, deleted };
}
