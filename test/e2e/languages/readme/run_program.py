"""Runs program.py (a Pulumi program as a user writes it, copied from a runnable block of the
README) inline through Python's Automation API against the service in CWS_BASE_URL, CWS_ORG
and CWS_API_TOKEN.

    python run_program.py up        # prints the outputs on an `outputs: ` line
    python run_program.py preview   # fails if the stack differs from the program
    python run_program.py destroy
"""

import json
import os
import sys

from pulumi import automation as auto

HERE = os.path.dirname(os.path.abspath(__file__))


def program() -> None:
    with open(os.path.join(HERE, "program.py"), encoding="utf-8") as f:
        code = f.read()
    exec(compile(code, "README.md", "exec"), {"__name__": "__main__"})


def main() -> None:
    stack = auto.create_or_select_stack(stack_name="dev", project_name="readme-python", program=program)
    stack.set_all_config(
        {
            "cws:baseUrl": auto.ConfigValue(os.environ["CWS_BASE_URL"]),
            "cws:org": auto.ConfigValue(os.environ["CWS_ORG"]),
            "cws:apiToken": auto.ConfigValue(os.environ["CWS_API_TOKEN"], secret=True),
        }
    )
    run = {
        "up": lambda: print_outputs(stack.up(on_output=print)),
        "preview": lambda: stack.preview(expect_no_changes=True, on_output=print),
        "destroy": lambda: stack.destroy(on_output=print),
    }
    # A failed command raises: the traceback and exit status 1 are what the test reads.
    run[sys.argv[1]]()


def print_outputs(result: auto.UpResult) -> None:
    shown = {k: "[secret]" if v.secret else v.value for k, v in result.outputs.items()}
    print("outputs: " + json.dumps(shown, sort_keys=True))


if __name__ == "__main__":
    main()
