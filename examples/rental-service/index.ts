/**
 * A RENTAL container service with a persistent volume, an SSH key and two ports.
 * Run against any Compute Workload Service (or `cws serve`): see README.md.
 */
import * as pulumi from "@pulumi/pulumi";
import { SshKey, Volume, Workload } from "pulumi-cws/sdk";

export default async function program() {
  const config = new pulumi.Config();
  const publicKey =
    config.get("publicKey") ??
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGb4dRmOOf0YDzJQwN7nFC0mQfqlk8hZwd2hzNs5nvGx demo@cws";
  const image = config.get("image") ?? "nginx:1.27";

  const key = new SshKey("deploy-key", { name: "deploy-key", publicKey });
  const data = new Volume("data", { name: "web-data", sizeInMb: 1024, resourceName: "gpu-rental-small" });

  const web = new Workload("web", {
    type: "RENTAL",
    name: "web",
    image,
    resourceName: "gpu-rental-small",
    envs: [{ name: "GREETING", value: "hello from cws" }],
    ports: [{ port: 8080 }, { port: 9090, protocol: "TCP", routing: "DIRECT" }],
    sshKeys: [key.uid],
    volumes: [{ uid: data.uid, mountPath: "/data" }],
    registryAuth: {
      server: "registry.example.com",
      username: "ci",
      password: config.getSecret("registryPassword") ?? pulumi.secret("example-registry-token"),
    },
  });

  return {
    workloadUid: web.uid,
    status: web.status,
    urls: web.urls,
    costPerHour: web.costPerHour,
    revision: web.revision,
    volumeUid: data.uid,
    volumeStatus: data.status,
    sshKeyUid: key.uid,
  };
}
