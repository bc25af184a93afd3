#!/usr/bin/env bash
# Assembles README.md from its parts: the head, the client, the reference server and its sandboxes.
set -euo pipefail
cd "$(dirname "$0")/.."
{
  cat docs/README-head.md
  echo
  sed 's/^#/##/' client/README.md
  echo
  cat server/README-reference-server.md
  if [ -f server/sandbox/README-routes.md ]; then echo; cat server/sandbox/README-routes.md; fi
} > README.md
