# The second file: it starts from the same base state, whatever the file before it changed (the
# first sold gpu-rental-small out; the restore gives the base state's capacity back).

run "restore_base" {
  module {
    source = "./tests/cws"
  }
  variables {
    args = "snapshot restore base"
  }
}

run "fits_in_the_capacity_of_the_base_state" {
  command = apply
  variables {
    name           = "api"
    volume_size_mb = 1024
  }

  assert {
    condition     = output.status == "running"
    error_message = "the service is ${output.status}, not running"
  }
  assert {
    condition     = toset(output.volumes_in_org) == toset(["api-data"])
    error_message = "the org holds other volumes: ${jsonencode(output.volumes_in_org)}"
  }
}
