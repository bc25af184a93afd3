# Runs one `cws` command against the server the tests use (CWS_URL or CWS_BASE_URL, and
# CWS_ADMIN_TOKEN, from the environment): a run block of a test file applies it, e.g. to put the
# server back to a snapshot.
variable "args" {
  description = "Arguments of the cws command, e.g. \"snapshot restore base\"."
  type        = string
}

resource "terraform_data" "cws" {
  # A new instance at every apply, so that the command runs each time.
  triggers_replace = [var.args, timestamp()]

  provisioner "local-exec" {
    command = "cws ${var.args}"
  }
}
