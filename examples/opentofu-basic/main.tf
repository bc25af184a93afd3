# A RENTAL web service with a volume and an SSH key, a VM, a sandbox with a template published
# from it, and a reusable workload template, on the Compute Workload Service.
#
# The provider takes its settings from the provider block or from CWS_BASE_URL, CWS_ORG and
# CWS_API_TOKEN (keep the token out of the files).
terraform {
  required_providers {
    cws = {
      source = "cws/cws"
    }
  }
}

provider "cws" {}

variable "image" {
  description = "Container image of the web service."
  type        = string
  default     = "nginx:1.27"
}

variable "vm_password" {
  description = "Password of the VM's default user."
  type        = string
  sensitive   = true
  default     = "change-me-7d1f"
}

variable "public_key" {
  description = "SSH public key installed on the workloads."
  type        = string
  default     = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGb4dRmOOf0YDzJQwN7nFC0mQfqlk8hZwd2hzNs5nvGx ops@example"
}

data "cws_sandbox_templates" "headless" {
  name   = "ubuntu-headless"
  status = "READY"
}

resource "cws_ssh_key" "ops" {
  name       = "ops"
  public_key = var.public_key
}

resource "cws_volume" "data" {
  name          = "web-data"
  size_in_mb    = 256
  resource_name = "gpu-rental-small"
}

resource "cws_workload" "web" {
  type          = "RENTAL"
  name          = "web"
  image         = var.image
  resource_name = "gpu-rental-small"
  ports         = [{ port = 8080 }]
  envs          = [{ name = "MODE", value = "prod" }]
  ssh_keys      = [cws_ssh_key.ops.uid]
  volumes       = [{ uid = cws_volume.data.uid, mount_path = "/data" }]

  timeouts {
    create = "10m"
    update = "10m"
  }
}

resource "cws_workload" "dev_vm" {
  type          = "VM"
  name          = "dev-vm"
  image         = "ubuntu-22.04"
  resource_name = "vm-standard"
  vm_config     = { password = var.vm_password }
}

resource "cws_sandbox" "base" {
  name     = "base"
  template = data.cws_sandbox_templates.headless.templates[0].uid
  ports    = [{ port = 8000 }]
  ttl_sec  = 3600
}

resource "cws_sandbox_template" "golden" {
  name           = "golden-image"
  source_sandbox = cws_sandbox.base.uid
  display_name   = "Golden image"
  description    = "base sandbox snapshot"
}

resource "cws_workload_template" "web" {
  name        = "web-service"
  description = "nginx behind a proxied port"
  type        = "RENTAL"
  manifest = jsonencode({
    name          = "web"
    image         = "nginx:1.27"
    resource_name = "gpu-rental-small"
    ports         = [{ port = 8080 }]
  })
}

output "web_urls" {
  value = cws_workload.web.urls
}

output "web_status" {
  value = cws_workload.web.status
}

output "golden_template" {
  value = cws_sandbox_template.golden.uid
}
