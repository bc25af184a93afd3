"""The failures Schemathesis may report that are the contract's own answer, each with its reason;
the running sandbox a fork the stateful phase starts from nothing forks; and the waits of spec
4.2's workflow: what a document cannot say. The server data a valid create names is the
document's own examples.

The failures: only a 400 to a schema-valid request (ST202), only on the operations named, and
only with the reason code named: a rule no schema of that operation can state. Every other
failure fails the run. Keep this list short: a rule a schema can state belongs in the document
(api/).
"""

import time

import requests
import schemathesis
from hypothesis import strategies as st

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
    (f"DELETE {W}/ssh-keys/{{key}}", "WORKLOAD_BM_SSH_KEYS_REQUIRED"): "a BM workload keeps at least one "
    "SSH key (spec 2): whether the key is its last depends on the stored workload",
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


# The server data a valid create names (inventory resources, images, regions, sandbox templates)
# is in the document itself: its `examples` come from the running server (server/openapi/
# examples.ts). Schemathesis mixes them into what it generates, one draw among many; the hooks
# below take them most of the time, and tie each to the body's `type` (a BM resource drawn for a
# VM is a 404 WORKLOAD_RESOURCE_TYPE_MISMATCH), so that the stateful phase goes on from creates
# the server accepts. No copy of the seed here: the values are read from the document.
SERVER_FIELDS = ("resource_name", "image", "region")


def _schemas(case):
    return case.operation.schema.raw_schema["components"]["schemas"]


def _examples_by_type(case, component):
    """{type: {field: the document's examples}} of each per-type object of `component`'s union."""
    schemas = _schemas(case)
    mapping = schemas[component]["discriminator"]["mapping"]
    out = {}
    for kind, ref in mapping.items():
        props = schemas[ref.rsplit("/", 1)[-1]].get("properties", {})
        fields = {f: props[f]["examples"] for f in SERVER_FIELDS if props.get(f, {}).get("examples")}
        if fields:
            out[kind] = fields
    return out


def _field_examples(case, component, field):
    return _schemas(case)[component]["properties"][field].get("examples", [])


# UIDs of objects the server makes: generated ones name nothing, so a valid body leaves them out
# (unless its type requires them: BM's ssh_keys); the links put real ones in (a created key into
# `ssh_keys`, a created volume into `volumes`).
MADE_BY_THE_SERVER = {"ssh_keys", "volumes", "reservation_uid"}
REQUIRED = {"BM": {"ssh_keys"}}


# A coin that comes up "as generated" one draw in ten. Hypothesis leans to the smallest integer,
# so that is one of the nine that take the hooks' choice.
AS_GENERATED = st.integers(0, 9).map(lambda n: n == 9)


def _with_server_data(case, fields, required=frozenset()):
    """Most of the time, the case with `fields` drawn from the document's examples and generated
    UIDs left out; else as generated."""
    choices = st.fixed_dictionaries({name: st.sampled_from(values) for name, values in fields.items()})

    def apply(drawn):
        keep, values = drawn
        if not keep:
            body = {k: v for k, v in case.body.items() if k not in MADE_BY_THE_SERVER or k in required}
            case.body = {**body, **values}
        return case

    return st.tuples(AS_GENERATED, choices).map(apply)


def _positive_object(case):
    meta = case.meta
    return isinstance(case.body, dict) and meta is not None and meta.generation.mode.is_positive


@schemathesis.hook("flatmap_case").apply_to(method="POST", path="/v3/orgs/{org}/workloads")
def workload_server_data(context, case):
    """A valid workload body names a resource, image and region of its own type. Negative cases
    are left as generated: they must stay invalid."""
    data = _examples_by_type(case, "WorkloadCreate") if _positive_object(case) else {}
    kind = case.body.get("type") if isinstance(case.body, dict) else None
    if kind not in data:
        return st.just(case)
    return _with_server_data(case, data[kind], REQUIRED.get(kind, frozenset()))


@schemathesis.hook("flatmap_case").apply_to(method="POST", path="/v3/orgs/{org}/volumes")
def volume_server_data(context, case):
    """A volume is mounted on a RENTAL workload and names a rental resource."""
    resources = _field_examples(case, "VolumeCreate", "resource_name") if _positive_object(case) else []
    if not resources:
        return st.just(case)
    return _with_server_data(case, {"resource_name": resources})


# A fork takes a running sandbox, and a generated uid names none: a fork the stateful phase starts
# from nothing (not from a link) is a 404. Most of those fork a running sandbox of the run's own
# instead, so that the phase goes on along the links of what a fork makes. The case carries a
# placeholder; the call puts in the sandbox, deploying a new one when the last is gone: the other
# steps find it too (in lists) and may delete, freeze or patch it.
FORK_SOURCE = "fork-source"
_fork_source = {"uid": None}


@schemathesis.hook("flatmap_case").apply_to(method="POST", path="/v3/orgs/{org}/workloads/{uid}/fork")
def fork_a_running_sandbox(context, case):
    """In the stateful phase, nine in ten forks whose uid no earlier step gave fork the running
    sandbox. The other phases fork as generated: each fork is a sandbox that runs."""
    meta = case.meta
    if meta is None or meta.phase.name != "stateful":
        return st.just(case)

    def apply(keep):
        # Whether a link gave the uid is the link's own coin, outside Hypothesis's draws: the
        # draw is made either way, or a replay would draw differently (a flaky strategy).
        linked = str(case.path_parameters.get("uid", "")).startswith("wl-")
        if not keep and not linked and meta.generation.mode.is_positive:
            case.path_parameters = {**case.path_parameters, "uid": FORK_SOURCE}
        return case

    return AS_GENERATED.map(apply)


def _org_url(case):
    """The URL of the case's org, under which the objects a hook reads or makes live."""
    return case.operation.schema.get_base_url().rstrip("/") + f"/v3/orgs/{case.path_parameters['org']}"


def _headers(case):
    """The run's own headers (schemathesis.toml): its token."""
    return case.operation.schema.config.headers_for(operation=case.operation)


def _fork_source_body(case):
    """The first SANDBOX create body among the document's examples of POST /workloads (the
    server's own data), or None when it states none."""
    post = case.operation.schema.raw_schema["paths"]["/v3/orgs/{org}/workloads"]["post"]
    examples = post["requestBody"]["content"]["application/json"].get("examples", {})
    bodies = [e["value"] for e in examples.values() if e.get("value", {}).get("type") == "SANDBOX"]
    return {**bodies[0], "name": "schemathesis-fork-source"} if bodies else None


def _running_fork_source(base, headers, body):
    """The uid of a running sandbox of the run's own: the last one while it runs, else a new one;
    None when the server makes none (no capacity left): the fork then goes to the placeholder, a
    404 the document gives."""
    uid = _fork_source["uid"]
    if uid is not None:
        answer = requests.get(f"{base}/workloads/{uid}/state", headers=headers, timeout=5)
        if answer.status_code == 200 and answer.json().get("status") == "running":
            return uid
    if body is None:
        return None
    made = requests.post(f"{base}/workloads", json=body, headers=headers, timeout=5)
    if made.status_code // 100 != 2:
        return None
    uid = made.json()["uid"]
    if requests.post(f"{base}/workloads/{uid}/deploy", headers=headers, timeout=5).status_code // 100 != 2:
        return None
    _settle(f"{base}/workloads/{uid}/state", headers, "provisioning")
    _fork_source["uid"] = uid
    return uid


@schemathesis.hook
def before_call(context, case, kwargs):
    """A fork of the placeholder forks the run's running sandbox."""
    if case.path_parameters and case.path_parameters.get("uid") == FORK_SOURCE:
        uid = _running_fork_source(_org_url(case), _headers(case), _fork_source_body(case))
        if uid is not None:
            case.path_parameters = {**case.path_parameters, "uid": uid}


# Spec 4.2's sandbox workflow: "deploy, poll state until running, then use exec, files, terminals".
# A deploy (or a fork, or a thaw) answers while the workload is still provisioning, and a publish
# while its template is PENDING; the client waits for them before its next step, as a program
# would, so that the walks reach what a running workload and a READY template take.
WAITS = {
    # path suffix -> (the object's URL under the org, the status it leaves)
    "/deploy": ("workloads/{uid}/state", "provisioning"),
    "/fork": ("workloads/{uid}/state", "provisioning"),
    "/thaw": ("workloads/{uid}/state", "provisioning"),
    "/publish": ("sandbox-templates/{uid}", "PENDING"),
}
SETTLED = 10.0


def _settle(url, headers, passing):
    """Polls the object at url until its status leaves `passing` (or it is gone), for SETTLED s."""
    deadline = time.monotonic() + SETTLED
    while time.monotonic() < deadline:
        answer = requests.get(url, headers=headers, timeout=5)
        if answer.status_code != 200 or answer.json().get("status") != passing:
            return
        time.sleep(0.05)


@schemathesis.hook
def after_call(context, case, response):
    """After a deploy, fork, thaw or publish that was accepted, poll what it made until it settles."""
    wait = next((w for suffix, w in WAITS.items() if case.operation.path.endswith(suffix)), None)
    if wait is None or case.method.upper() != "POST" or not 200 <= response.status_code < 300:
        return
    try:
        uid = response.json()["uid"]
    except Exception:  # not an object's answer: nothing to wait for
        return
    path, passing = wait
    _settle(f"{_org_url(case)}/{path.format(uid=uid)}", _headers(case), passing)
