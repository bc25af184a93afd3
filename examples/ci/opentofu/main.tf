# One configuration, many environments side by side in one org: each OpenTofu workspace (a
# pull request's "pr-123", "staging", "prod") is its own state in a shared PostgreSQL database
# and its own set of objects, named after the workspace. See docs/teams.md.
#
#   export PG_CONN_STR=postgres://user:pass@db.example.com/tofu_state   # the state database
#   export CWS_BASE_URL=... CWS_ORG=... CWS_API_TOKEN=...                # the service
#   tofu init
#   tofu workspace select -or-create pr-123
#   tofu apply -auto-approve -lock-timeout=10m
terraform {
  required_providers {
    cws = {
      source = "cws/cws"
    }
  }
  # State in PostgreSQL, one row per workspace, locked while a run holds it (an advisory lock).
  # The connection string comes from PG_CONN_STR: keep the password out of the files.
  backend "pg" {}
}

provider "cws" {}

variable "image" {
  description = "Container image of the web service."
  type        = string
  default     = "nginx:1.27"
}

variable "public_key" {
  description = "SSH public key installed on the workload."
  type        = string
  default     = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGb4dRmOOf0YDzJQwN7nFC0mQfqlk8hZwd2hzNs5nvGx ci@example"
}

locals {
  # HCL has no auto-naming: names carry the workspace, so environments never share a name.
  env = terraform.workspace
}

resource "cws_ssh_key" "deploy" {
  name       = "deploy-${local.env}"
  public_key = var.public_key
}

resource "cws_volume" "data" {
  name          = "data-${local.env}"
  size_in_mb    = 256
  resource_name = "gpu-rental-small"
}

resource "cws_workload" "web" {
  type          = "RENTAL"
  name          = "web-${local.env}"
  image         = var.image
  resource_name = "gpu-rental-small"
  ssh_keys      = [cws_ssh_key.deploy.uid]
  volumes       = [{ uid = cws_volume.data.uid, mount_path = "/data" }]
}

output "web_name" {
  value = cws_workload.web.name
}

output "web_status" {
  value = cws_workload.web.status
}
