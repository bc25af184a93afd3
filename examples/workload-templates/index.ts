/** Reusable workload templates: manifests checked at preview as workload create bodies. */
import * as pulumi from "@pulumi/pulumi";
import { WorkloadTemplate } from "pulumi-cws/sdk";

export default async function program() {
  const web = new WorkloadTemplate("web-template", {
    name: "web-service",
    description: "nginx behind a proxied port",
    type: "RENTAL",
    manifest: {
      name: "web",
      image: "nginx:1.27",
      resourceName: "gpu-rental-small",
      ports: [{ port: 8080 }],
      envs: [{ name: "MODE", value: "production" }],
    },
  });

  const vm = new WorkloadTemplate("vm-template", {
    name: "dev-vm",
    type: "VM",
    manifest: {
      name: "dev-vm",
      image: "ubuntu-22.04",
      resourceName: "vm-standard",
      vmConfig: { password: pulumi.secret("template-password") },
    },
  });

  return { webTemplate: web.uid, vmTemplate: vm.uid, visibility: web.visibility };
}
