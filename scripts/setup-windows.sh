#!/usr/bin/env bash
# What the Windows check (`npm run test:windows`: test/e2e/windows/, docs/windows.md) needs beyond
# the tests' setup (scripts/setup-tests.sh): Wine 8.0, which runs the windows-amd64 executables, and
# mingw-w64, which builds the test's stand-in bcryptprimitives.dll (about 1.2 GB installed and 2.5
# minutes), and OpenTofu's tofu.exe and the Pulumi CLI with its YAML host cross-compiled with
# GOOS=windows from the Go module proxy, cached beside the Linux builds (once: minutes for tofu.exe,
# about a quarter of an hour for the Pulumi CLI on two cores). The test makes its Wine prefix and the Windows
# release itself, cached in ~/.cache/pulumi-cws.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/apt-install.sh
. scripts/apt-install.sh
apt_install wine wine64 gcc-mingw-w64-x86-64
node_modules/.bin/node scripts/toolchain/cli.ts tofu windows
node_modules/.bin/node scripts/toolchain/cli.ts pulumi windows
