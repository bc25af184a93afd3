#!/usr/bin/env bash
# The Pulumi jobs teams wire into CI, as one plain shell script:
#
#   pulumi-ci.sh preview   pull request: show what would change (`pulumi preview --diff`)
#   pulumi-ci.sh up        merge to the main branch: apply it (`pulumi up --yes --refresh`;
#                          the refresh first makes the update repair any drift too)
#   pulumi-ci.sh drift     schedule: fail when the service no longer matches the stack
#                          (`pulumi preview --refresh --expect-no-changes`)
#   pulumi-ci.sh review    pull request: deploy the pull request's own stack (PULUMI_STACK=pr-123),
#                          made on first use (`pulumi stack select --create`, then `pulumi up`)
#   pulumi-ci.sh cleanup   pull request closed: destroy the review stack's objects and remove
#                          the stack (`pulumi destroy --remove`); nothing to do when it is gone
#
# Review stacks of one program live side by side in one org when the program leaves `name` unset
# (each object gets its logical name and a random suffix, kept in the stack's state); run one job
# per stack at a time (the CI system's concurrency group): see docs/teams.md.
#
# Run it in the Pulumi project's directory (or set PULUMI_PROJECT_DIR). The stack is
# PULUMI_STACK (required). Credentials come from the environment as for any Pulumi run: the
# backend (PULUMI_BACKEND_URL or PULUMI_ACCESS_TOKEN), PULUMI_CONFIG_PASSPHRASE for a
# passphrase-encrypted stack, and the service (CWS_BASE_URL, CWS_ORG, CWS_API_TOKEN, or the
# stack's cws:* config).
#
# Exit codes: 0 success (drift: no drift); 1 drift found (drift only; every drifted resource
# and property is named on a `drift:` line); 2 usage error or a failed Pulumi run.
set -uo pipefail

usage() {
  echo "usage: $0 preview|up|drift|review|cleanup   (with PULUMI_STACK set)" >&2
  exit 2
}

[ $# -eq 1 ] || usage
cmd="$1"
if [ -z "${PULUMI_STACK:-}" ]; then
  echo "error: PULUMI_STACK is not set: name the stack to $cmd (for example dev or prod)" >&2
  exit 2
fi
cd "${PULUMI_PROJECT_DIR:-.}" || exit 2
common=(--stack "$PULUMI_STACK" --non-interactive)

case "$cmd" in
  preview)
    pulumi preview "${common[@]}" --diff || exit 2
    ;;
  up)
    pulumi up "${common[@]}" --yes --refresh --skip-preview --diff || exit 2
    ;;
  review)
    pulumi stack select --create "$PULUMI_STACK" --non-interactive || exit 2
    pulumi up "${common[@]}" --yes --skip-preview --diff || exit 2
    ;;
  cleanup)
    if ! pulumi stack select "$PULUMI_STACK" --non-interactive >/dev/null 2>&1; then
      echo "nothing to clean up: there is no stack $PULUMI_STACK"
      exit 0
    fi
    pulumi destroy "${common[@]}" --yes --skip-preview --remove || exit 2
    echo "the stack $PULUMI_STACK is destroyed and removed"
    ;;
  drift)
    if ! command -v jq >/dev/null 2>&1; then
      echo "error: the drift check needs jq to name the drifted resources (apt-get install jq)" >&2
      exit 2
    fi
    out="$(mktemp)"
    err="$(mktemp)"
    trap 'rm -f "$out" "$err"' EXIT
    # --refresh reads every resource from the service first, so a change made behind the stack's
    # back shows as a difference between the program and the service.
    pulumi preview "${common[@]}" --refresh --expect-no-changes --json >"$out" 2>"$err"
    rc=$?
    # Every step that is not "same": the resource, its type, what Pulumi would do and the
    # properties that differ (for a deleted or a new resource, the whole resource).
    drifted="$(jq -r '
      [.steps[]? | select(.op != "same" and .op != "read" and .op != "refresh")
        | "drift: \(.urn | split("::") | last) (\(.newState.type // .oldState.type // "?")) would \(.op): " +
          ((.diffReasons // []) + ((.detailedDiff // {}) | keys) | unique
            | if length == 0 then "the whole resource" else join(", ") end)
      ] | .[]' "$out" 2>/dev/null)"
    if [ -n "$drifted" ]; then
      echo "$drifted"
      echo "the stack $PULUMI_STACK has drifted: run 'pulumi up' to put the service back as the program says, or change the program" >&2
      exit 1
    fi
    if [ "$rc" -ne 0 ]; then
      cat "$err" >&2
      jq -r '.diagnostics[]? | select(.severity == "error") | .message' "$out" 2>/dev/null >&2 || cat "$out" >&2
      echo "error: the drift check could not run (pulumi preview exited $rc)" >&2
      exit 2
    fi
    echo "no drift: the service matches the stack $PULUMI_STACK"
    ;;
  *)
    usage
    ;;
esac
