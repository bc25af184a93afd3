#!/usr/bin/env bash
# Sets up a fresh Debian machine for the demo and the tests:
#   Debian packages for real sandboxes (bubblewrap, and what server/sandbox/runtime/DEBIAN_PACKAGES lists),
#   Chromium for the dashboard's browser test (test/e2e/browser/dashboard.test.ts drives /usr/bin/chromium),
#   npm packages (including Node 24 from the npm registry), and the build (dist/),
#   the Pulumi CLI and the YAML language host built from the Go module proxy (cached in ~/.cache/pulumi-cws),
#   OpenTofu built the same way (HashiCorp Terraform, the HCL tests' other tool, is built by `npm test`),
#   the Python and Go SDKs generated from schema.json, and the project venv (.venv) for Python
#   (with moto's S3 server, the S3-compatible store of the team-state tests),
#   PostgreSQL for OpenTofu's pg backend in the team-state tests (test/helpers/team-backends.ts
#   starts a throwaway server of each for the tests that use it).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -z "${CWS_SKIP_APT:-}" ]; then
  # chromium: ~100 MB download and a minute or two to install on a cold machine.
  packages=(bubblewrap python3 chromium)
  packages+=(python3-venv) # Python programs: the project's virtual environment (.venv)
  packages+=(openjdk-17-jdk-headless maven) # Java programs: javac and Maven (scripts/toolchain/java.ts)
  packages+=(postgresql) # OpenTofu's pg state backend in test/e2e/teams (initdb and pg_ctl, psql)
  # npm run release (scripts/release/): llvm-strip shrinks the linux executables, and qemu-user with
  # the arm64 C and C++ libraries runs the linux-arm64 one once as a check.
  packages+=(llvm qemu-user libc6-arm64-cross libstdc++6-arm64-cross)
  if [ -f server/sandbox/runtime/DEBIAN_PACKAGES ]; then
    while read -r p; do
      case "$p" in ""|\#*) ;; *) packages+=("$p") ;; esac
    done < server/sandbox/runtime/DEBIAN_PACKAGES
  fi
  missing=()
  for p in "${packages[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  if [ "${#missing[@]}" -gt 0 ]; then
    echo "setup: installing Debian packages: ${missing[*]}"
    sudo_cmd=""
    [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
    $sudo_cmd apt-get update -qq || echo "setup: apt-get update failed; trying the install with the current package lists"
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
  fi
fi

echo "setup: npm ci"
npm ci --no-audit --no-fund
# dist/: the compiled package (what `npm pack` ships; about 30 s on 2 cores).
npm run --silent build
# npm scripts run with node_modules/.bin (Node 24) first on PATH.
npm run --silent pulumi:build

# OpenTofu, for the OpenTofu front end (terraform-provider-cws) and its tests: built from the Go
# module proxy and cached by version beside the Pulumi CLI (scripts/toolchain/tofu.ts).
npm run --silent tofu:build

# HashiCorp Terraform, the other tool the HCL tests run, is not built here: the demo does not need
# it, and it is about 5 more minutes cold on 2 cores. `npm test` builds it first (terraform:build:
# from the Go module proxy with the source edit of scripts/toolchain/terraform.ts, cached beside
# OpenTofu).

# Python, Go and YAML programs: the SDKs generated from schema.json (tools/gen-sdk, cached),
# the project's Python virtual environment (.venv) and the Go programs' modules.
npm run --silent languages:setup

# Java programs: the Java language host (tools/pulumi-java, cached beside the CLI), the Java SDK
# generated from schema.json and built by Maven into sdk/maven, the Java example's Maven downloads.
npm run --silent java:setup
