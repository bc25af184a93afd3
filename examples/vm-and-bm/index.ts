/** A VM with a secret password, and a bare-metal server in a region, reachable by SSH. */
import * as pulumi from "@pulumi/pulumi";
import { SshKey, Workload } from "pulumi-cws/sdk";

export default async function program() {
  const config = new pulumi.Config();
  const password = config.getSecret("vmPassword") ?? pulumi.secret("correct-horse-battery");
  const key = new SshKey("ops-key", {
    name: "ops-key",
    publicKey:
      config.get("publicKey") ??
      "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGb4dRmOOf0YDzJQwN7nFC0mQfqlk8hZwd2hzNs5nvGx ops@cws",
  });

  const vm = new Workload("vm", {
    type: "VM",
    name: "build-vm",
    image: config.get("vmImage") ?? "ubuntu-22.04",
    resourceName: "vm-standard",
    vmConfig: { password },
    ports: [{ port: 2222, protocol: "TCP" }],
    sshKeys: [key.uid],
  });

  const bm = new Workload("bm", {
    type: "BM",
    name: "trainer",
    image: config.get("bmImage") ?? "ubuntu-22.04-cuda",
    resourceName: "bm-h100-8x",
    region: config.get("region") ?? "us-east-1",
    sshKeys: [key.uid],
    bmConfig: { hostname: "trainer-01" },
  });

  return {
    vm: {
      uid: vm.uid,
      status: vm.status,
      publicIp: vm.publicIp,
      sshPort: vm.sshPort,
      costPerHour: vm.costPerHour,
    },
    bm: {
      uid: bm.uid,
      status: bm.status,
      publicIp: bm.publicIp,
      sshPort: bm.sshPort,
      costPerHour: bm.costPerHour,
    },
  };
}
