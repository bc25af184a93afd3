/**
 * The dynamic front end's program of the recorded upgrade set: every kind, with attachments,
 * env vars, secrets, a customTimeouts option and one adopted workload. Config: `importUid` (a
 * RENTAL workload made through the API), `vmPassword` (secret), `registryPassword` (secret) and
 * `release` (the value of the RELEASE env var: the upgrade test changes it).
 */
import * as pulumi from "@pulumi/pulumi";
import { Sandbox, SandboxTemplate, SshKey, Volume, Workload, WorkloadTemplate } from "pulumi-cws/sdk";

export function program(): Record<string, unknown> {
  const config = new pulumi.Config();
  const key = new SshKey("key", {
    name: "upgrade-key",
    publicKey: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGb4dRmOOf0YDzJQwN7nFC0mQfqlk8hZwd2hzNs5nvGx upgrade@cws",
  });
  const data = new Volume("data", { name: "upgrade-data", sizeInMb: 512, resourceName: "gpu-rental-small" });
  const web = new Workload(
    "web",
    {
      type: "RENTAL",
      name: "upgrade-web",
      image: "registry.example.com/team/web:1.4",
      resourceName: "gpu-rental-small",
      envs: [
        { name: "RELEASE", value: config.require("release") },
        { name: "LOG_LEVEL", value: "info" },
      ],
      ports: [{ port: 8080 }, { port: 9090, protocol: "UDP", routing: "DIRECT" }],
      commands: ["/bin/web"],
      args: ["--listen", ":8080"],
      registryAuth: {
        server: "registry.example.com",
        username: "ci",
        password: config.requireSecret("registryPassword"),
      },
      sshKeys: [key.uid],
      volumes: [{ uid: data.uid, mountPath: "/data" }],
      experiments: { "persistent-workload": true },
    },
    { customTimeouts: { create: "5m", update: "5m" } },
  );
  const vm = new Workload("vm", {
    type: "VM",
    name: "upgrade-vm",
    image: "ubuntu-22.04",
    resourceName: "vm-standard",
    vmConfig: { password: config.requireSecret("vmPassword") },
    sshKeys: [key.uid],
    ports: [{ port: 2222, protocol: "TCP" }],
  });
  const bm = new Workload("bm", {
    type: "BM",
    name: "upgrade-bm",
    image: "ubuntu-22.04-cuda",
    resourceName: "bm-h100-8x",
    region: "us-east-1",
    sshKeys: [key.uid],
    bmConfig: { hostname: "upgrade-bm-01" },
  });
  const adopted = new Workload("adopted", {
    adoptUid: config.require("importUid"),
    type: "RENTAL",
    name: "upgrade-adopted",
    image: "nginx:1.27",
    resourceName: "gpu-rental-small",
    ports: [{ port: 8080 }],
  });
  const box = new Sandbox("box", {
    name: "upgrade-box",
    template: "tpl-ubuntu-headless",
    ports: [{ port: 8000 }],
    sshKeys: [key.uid],
  });
  const paused = new Sandbox("paused", {
    name: "upgrade-paused",
    template: "tpl-ubuntu-headless",
    frozen: true,
  });
  const snapshot = new SandboxTemplate("snapshot", {
    name: "upgrade-snapshot",
    sourceSandbox: box.uid,
    displayName: "Upgrade snapshot",
    description: "published from upgrade-box",
  });
  const webTemplate = new WorkloadTemplate("webTemplate", {
    name: "upgrade-web-template",
    description: "a RENTAL web server",
    type: "RENTAL",
    manifest: { name: "web", image: "nginx:1.27", resourceName: "gpu-rental-small", ports: [{ port: 8080 }] },
  });
  return {
    webUid: web.uid,
    vmUid: vm.uid,
    bmUid: bm.uid,
    adoptedUid: adopted.uid,
    boxUid: box.uid,
    pausedStatus: paused.status,
    snapshotUid: snapshot.uid,
    webTemplateUid: webTemplate.uid,
  };
}
