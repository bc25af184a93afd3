"""The failures Schemathesis may report that are the contract's own answer, each with its reason.

Only a 400 to a schema-valid request (ST202), only on the operations named, and only with the
reason code named: a rule no schema of that operation can state. Every other failure fails the
run. Keep this list short: a rule a schema can state belongs in the document (api/).
"""

import schemathesis

W = "/v3/orgs/{org}/workloads/{uid}"
SANDBOX_ONLY = [
    f"GET {W}/desktop",
    f"GET {W}/files",
    f"PUT {W}/files",
    f"GET {W}/terminals",
    f"POST {W}/terminals",
    f"DELETE {W}/terminals/{{terminal}}",
    f"POST {W}/access-tickets",
    f"POST {W}/fork",
    f"POST {W}/publish",
    f"POST {W}/freeze",
    f"POST {W}/thaw",
]

# (operation, reason code) -> why no schema of the operation can state the rule.
ACCEPTED = {
    **{
        (op, "WORKLOAD_OPERATION_UNSUPPORTED"): "an operation of some workload types only: the path does "
        "not say the workload's type, and the spec answers another type with 400"
        for op in [
            *SANDBOX_ONLY,
            f"POST {W}/reboot",
            f"POST {W}/suspend",
            f"POST {W}/exec",
            f"PUT {W}/volumes/{{volume}}",
            f"DELETE {W}/volumes/{{volume}}",
        ]
    },
    **{
        (op, "WORKLOAD_SANDBOX_PATH_INVALID"): "whether a path names a file (not a directory) in a "
        "writable place depends on the sandbox's file system; spec 7 answers a bad path with 400"
        for op in [f"GET {W}/files", f"PUT {W}/files"]
    },
    (f"GET {W}/logs", "INVALID_QUERY"): "type=serial|qemu is for VM workloads only: the path does not say the type",
    (f"POST {W}/exec", "WORKLOAD_EXEC_INVALID"): "a SANDBOX exec needs the body (cmd) a RENTAL exec goes "
    "without: the path does not say the type",
    (f"POST {W}/exec", "INVALID_QUERY"): "RENTAL takes the command as repeated `command` query parameters, SANDBOX "
    "as a body: the path does not say the type",
    (f"PATCH {W}", "WORKLOAD_FIELD_UNSUPPORTED"): "the fields a PATCH takes depend on the stored workload's type",
    (f"PATCH {W}", "WORKLOAD_SANDBOX_UPDATE_UNSUPPORTED_FIELD"): "the same, for sandboxes (spec 4.2)",
    (f"PATCH {W}", "WORKLOAD_NAME_INVALID"): "a SANDBOX name may not start or end with a hyphen, "
    "which other types' names may: the path does not say the type",
    ("PATCH /v3/orgs/{org}/templates/{uid}", "TEMPLATE_MANIFEST_INVALID"): "a new manifest must fit the stored "
    "template's type",
    **{
        (op, "WORKLOAD_PORT_INVALID"): "no two ports with the same port and protocol (TCP when left out): "
        "JSON Schema's uniqueItems sees {port: 1024} and {port: 1024, protocol: TCP} as two"
        for op in ["POST /v3/orgs/{org}/workloads", f"PATCH {W}"]
    },
    ("POST /v3/orgs/{org}/templates", "TEMPLATE_MANIFEST_INVALID"): "the same rules (ports, timeouts) inside "
    "a manifest",
    **{
        (op, "WORKLOAD_SANDBOX_TIMEOUTS_INVALID"): "idle_timeout_sec < ttl_sec compares two fields, which "
        "JSON Schema cannot"
        for op in ["POST /v3/orgs/{org}/workloads", f"PATCH {W}", f"POST {W}/fork"]
    },
}

# Reasons a manifest may be refused with that no schema states (the rest must not happen).
MANIFEST_WORDS = ("duplicates port", "idle_timeout_sec must be smaller")


def _reason(response):
    try:
        return response.json().get("reason")
    except Exception:  # not JSON: never accepted
        return None


# Spec 3: a deleted workload is soft-deleted: it, its state, events and logs stay readable (with
# status `deleted`), where ST301 expects 404.
SOFT_DELETED = "/v3/orgs/{org}/workloads/{uid}"


@schemathesis.hook
def filter_failure(context, failure, case, response):
    """Keep every failure but the ST202 400s of ACCEPTED, reads of a soft-deleted workload and
    the 503 of a sandbox capacity used up."""
    code = getattr(failure, "code", None)
    if code == "ST101" and response.status_code == 503:
        # Spec 7: 503 when no sandbox capacity is left; the run bounds sandboxes (run.ts).
        return _reason(response) != "WORKLOAD_SANDBOX_NO_CAPACITY"
    if code == "ST301":
        soft = case.operation.path.startswith(SOFT_DELETED) and case.method.upper() == "GET"
        return not (soft and response.status_code == 200)
    if code != "ST202" or response.status_code != 400:
        return True
    key = (f"{case.operation.method.upper()} {case.operation.path}", _reason(response))
    if key not in ACCEPTED:
        return True
    if key[0] == "POST /v3/orgs/{org}/templates":
        return not any(words in response.text for words in MANIFEST_WORDS)
    return False
