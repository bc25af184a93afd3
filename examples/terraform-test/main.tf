# A web service with its data volume, under test with `terraform test` / `tofu test` against the
# reference server (`cws serve`): see README.md and tests/.
#
# The SSH key it installs is not made here: it is a fixture of the org (`ci`), saved with the rest
# of the server's state in the snapshot every test file starts from.
terraform {
  required_providers {
    cws = {
      source = "cws/cws"
    }
  }
}

provider "cws" {}

variable "name" {
  description = "Name of the web service (and prefix of its volume's)."
  type        = string
  default     = "web"

  validation {
    condition     = can(regex("^[a-z][a-z0-9-]{0,22}[a-z0-9]$", var.name))
    error_message = "name must be 2-24 lowercase letters, digits or hyphens, starting with a letter."
  }
}

variable "volume_size_mb" {
  description = "Size of the data volume, in MiB."
  type        = number
  default     = 256

  validation {
    condition     = var.volume_size_mb >= 64 && var.volume_size_mb <= 4096
    error_message = "volume_size_mb must be between 64 and 4096."
  }
}

variable "ssh_key_name" {
  description = "Name of the org's SSH key installed on the service."
  type        = string
  default     = "ci"
}

data "cws_ssh_keys" "installed" {
  name = var.ssh_key_name
}

resource "cws_volume" "data" {
  name          = "${var.name}-data"
  size_in_mb    = var.volume_size_mb
  resource_name = "gpu-rental-small"
}

resource "cws_workload" "web" {
  type          = "RENTAL"
  name          = var.name
  image         = "nginx:1.27"
  resource_name = "gpu-rental-small"
  ports         = [{ port = 8080 }]
  ssh_keys      = [data.cws_ssh_keys.installed.keys[0].uid]
  volumes       = [{ uid = cws_volume.data.uid, mount_path = "/data" }]
}

# Every volume of the org once this module's is made.
data "cws_volumes" "all" {
  depends_on = [cws_volume.data]
}

output "status" {
  value = cws_workload.web.status
}

output "urls" {
  value = cws_workload.web.urls
}

output "volumes_in_org" {
  value = [for v in data.cws_volumes.all.volumes : v.name]
}
