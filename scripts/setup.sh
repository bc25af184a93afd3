#!/usr/bin/env bash
# Sets up a fresh Debian machine for the demo (`npm run demo`):
#   the Debian packages real sandboxes need (server/sandbox/runtime/DEBIAN_PACKAGES, bubblewrap first),
#   npm packages (including Node 24 from the npm registry), and the build (dist/),
#   the Pulumi CLI and the YAML language host built from the Go module proxy (cached in ~/.cache/pulumi-cws).
# What only the tests need (OpenTofu, Terraform, the language SDKs, Java, PostgreSQL, Chromium, the
# release tools) is scripts/setup-tests.sh, which .ci/run runs after this one.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/apt-install.sh
. scripts/apt-install.sh

packages=(bubblewrap python3)
if [ -f server/sandbox/runtime/DEBIAN_PACKAGES ]; then
  while read -r p; do
    case "$p" in ""|\#*) ;; *) packages+=("$p") ;; esac
  done < server/sandbox/runtime/DEBIAN_PACKAGES
fi
apt_install "${packages[@]}"

echo "setup: npm ci"
npm ci --no-audit --no-fund
# dist/: the compiled package (what `npm pack` ships; about 30 s on 2 cores).
npm run --silent build
# npm scripts run with node_modules/.bin (Node 24) first on PATH.
npm run --silent pulumi:build
