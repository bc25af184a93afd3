/**
 * A web service: RENTAL workloads, each with a data volume, that install an SSH key the org
 * already has (its UID in the `sshKeyUid` config). The program under test in web.test.ts; run it
 * against any Compute Workload Service (or `cws serve`): see README.md.
 */
import * as pulumi from "@pulumi/pulumi";
import { Volume, Workload } from "pulumi-cws/sdk";

export default async function program() {
  const config = new pulumi.Config();
  const replicas = config.getNumber("replicas") ?? 1;
  const sshKeyUid = config.require("sshKeyUid");

  const services = Array.from({ length: replicas }, (_, i) => {
    const data = new Volume(`data-${i}`, {
      name: `web-${i}-data`,
      sizeInMb: 256,
      resourceName: "gpu-rental-small",
    });
    return new Workload(`web-${i}`, {
      type: "RENTAL",
      name: `web-${i}`,
      image: "nginx:1.27",
      resourceName: "gpu-rental-small",
      ports: [{ port: 8080 }],
      sshKeys: [sshKeyUid],
      volumes: [{ uid: data.uid, mountPath: "/data" }],
    });
  });

  return {
    statuses: pulumi.all(services.map((w) => w.status)),
    urls: pulumi.all(services.map((w) => w.urls)),
  };
}
