"""A sandbox on the Compute Workload Service that can be frozen and thawed: a Pulumi program in
Python, run inline by Python's Automation API (no language host needed).

    python main.py up [--frozen]       # create or update, then print the outputs
    python main.py preview [--frozen]  # fails if the stack differs from the program
    python main.py refresh
    python main.py destroy

The service comes from the environment: CWS_BASE_URL, CWS_ORG, CWS_API_TOKEN (see README.md).
"""

import argparse
import json
import os
import sys

import pulumi
import pulumi_cws as cws
from pulumi import automation as auto

PROJECT = "python-sandbox"


def program() -> None:
    config = pulumi.Config()
    template_name = config.get("template") or "ubuntu-headless"

    # A lookup: the platform (FRESH) template of that name, READY to start sandboxes from.
    found = cws.get_sandbox_templates(kind="FRESH", status="READY", name=template_name)
    if not found.templates:
        raise ValueError(f"no READY platform sandbox template named {template_name!r}")
    template = found.templates[0]

    box = cws.Sandbox(
        "workbench",
        name="workbench",
        template=template.uid,
        ports=[{"port": 8000}],
        ttl_sec=4 * 3600,
        # true freezes the sandbox (processes stopped, files kept, billed at the frozen rate);
        # false thaws it. The uid, the files and the template stay the same either way.
        frozen=config.get_bool("frozen") or False,
    )

    pulumi.export("template", template.name)
    pulumi.export("uid", box.uid)
    pulumi.export("status", box.status)
    pulumi.export("urls", box.urls)
    pulumi.export("costPerHour", box.cost_per_hour)
    pulumi.export("frozenCostPerHour", box.frozen_cost_per_hour)


def stack_config(frozen: bool) -> dict:
    """The stack's configuration from the environment; the API token is a secret."""
    config = {"frozen": auto.ConfigValue("true" if frozen else "false")}
    for env, key, secret in (
        ("CWS_BASE_URL", "cws:baseUrl", False),
        ("CWS_ORG", "cws:org", False),
        ("CWS_API_TOKEN", "cws:apiToken", True),
    ):
        value = os.environ.get(env)
        if not value:
            raise SystemExit(f"error: {env} is not set (it becomes the stack's {key})")
        config[key] = auto.ConfigValue(value, secret=secret)
    return config


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["up", "preview", "refresh", "destroy"])
    parser.add_argument("--frozen", action="store_true", help="freeze the sandbox")
    args = parser.parse_args()

    stack = auto.create_or_select_stack(
        stack_name=os.environ.get("PULUMI_STACK", "dev"), project_name=PROJECT, program=program
    )
    stack.set_all_config(stack_config(args.frozen))

    if args.command == "up":
        result = stack.up(on_output=print)
        shown = {k: "[secret]" if v.secret else v.value for k, v in result.outputs.items()}
        print("outputs: " + json.dumps(shown, sort_keys=True))
    elif args.command == "preview":
        stack.preview(expect_no_changes=True, on_output=print)
    elif args.command == "refresh":
        stack.refresh(on_output=print)
    else:
        stack.destroy(on_output=print)


if __name__ == "__main__":
    try:
        main()
    except auto.errors.CommandError as e:
        print(f"error: {e}", file=sys.stderr)
        sys.exit(1)
