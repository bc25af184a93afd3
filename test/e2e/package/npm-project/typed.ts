/**
 * A program of a TypeScript user, type-checked (`tsc --noEmit --strict`) against the installed
 * package by test/e2e/package/npm-package.test.ts: every public entry point, with the types users write.
 */
import * as pulumi from "@pulumi/pulumi";
import { REASONS, type WorkloadCreate, type WorkloadStatus } from "pulumi-cws/api";
import { CwsClient, isNotFound, type CwsClientOptions } from "pulumi-cws/client";
import { SshKey, Volume, Workload, type WorkloadArgs } from "pulumi-cws/sdk";
import { startServer } from "pulumi-cws/server";

export async function reference(): Promise<WorkloadStatus> {
  const server = await startServer({ port: 0, provisionDelayMs: 20 });
  const options: CwsClientOptions = { baseUrl: server.baseUrl, org: "demo", token: "demo-token" };
  const client = new CwsClient(options);
  try {
    const body: WorkloadCreate = {
      type: "RENTAL",
      name: "web",
      image: "nginx:1.27",
      resource_name: "gpu-rental-small",
    };
    const wl = await client.workloads.create(body);
    await client.workloads.deploy(wl.uid);
    const state = await client.workloads.waitForStatus(wl.uid, "running", { timeoutMs: 10_000 });
    return state.status;
  } catch (e) {
    if (isNotFound(e)) return "deleted";
    throw e;
  } finally {
    await client.close();
    await server.close();
  }
}

export function program() {
  const key = new SshKey("key", { name: "deploy", publicKey: "ssh-ed25519 AAAA me@laptop" });
  const data = new Volume("data", { name: "data", sizeInMb: 1024, resourceName: "gpu-rental-small" });
  const args: WorkloadArgs = {
    type: "RENTAL",
    name: "web",
    image: "nginx:1.27",
    resourceName: "gpu-rental-small",
    ports: [{ port: 8080 }],
    sshKeys: [key.uid],
    volumes: [{ uid: data.uid, mountPath: "/data" }],
    registryAuth: { server: "registry.example.com", username: "ci", password: pulumi.secret("token") },
  };
  const web = new Workload("web", args);
  const urls: pulumi.Output<{ port: number; url: string }[]> = web.urls;
  const notFoundStatus: number = REASONS.WORKLOAD_NOT_FOUND;
  return { urls, notFoundStatus };
}
