# The service as the module makes it, from the org's base state.

run "restore_base" {
  module {
    source = "./tests/cws"
  }
  variables {
    args = "snapshot restore base"
  }
}

run "creates_a_running_service" {
  command = apply

  assert {
    condition     = output.status == "running"
    error_message = "the service is ${output.status}, not running"
  }
  assert {
    condition     = length(output.urls) == 1
    error_message = "the service has no URL for port 8080"
  }
  # The snapshot held no volume: whatever another run left in the org went with the restore.
  assert {
    condition     = toset(output.volumes_in_org) == toset(["web-data"])
    error_message = "the org holds other volumes: ${jsonencode(output.volumes_in_org)}"
  }
}

run "refuses_a_volume_too_small" {
  command = plan
  variables {
    volume_size_mb = 16
  }
  expect_failures = [var.volume_size_mb]
}

run "refuses_a_bad_name" {
  command = plan
  variables {
    name = "Web_1"
  }
  expect_failures = [var.name]
}

# Leaves the server changed outside Terraform, as an outage drill would: the next file does not
# see it, since it starts from the base snapshot again.
run "sells_out_gpu_rentals" {
  module {
    source = "./tests/cws"
  }
  variables {
    args = "inventory --set gpu-rental-small=0"
  }
}
