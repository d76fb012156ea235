"""The OpenAI Agents SDK's side of `peers: agents-sdk strict`, driven by `src/strict.rs`.

Reads a JSON array of input schemas (argv[1]), answers on stdout with the indices that
`ensure_strict_json_schema` converts (one JSON line), then, for each line `<passes>` on stdin,
converts every accepted schema `passes` times and answers with two times of one pass in
nanoseconds, each the fastest of the `passes` (as toolmodel's side keeps its fastest chunk): the SDK's MCP path (`agents/mcp/util.py`: `ensure_strict_json_schema` of
`_copy_json_schema(schema)`, the copy that leaves the MCP tool's schema as it was, which is
what toolmodel's conversion does too), and `ensure_strict_json_schema` alone (on copies made
before its clock starts: it mutates its argument).
"""

import copy
import json
import sys
import time

import agents
from agents.exceptions import UserError
from agents.strict_schema import _copy_json_schema, ensure_strict_json_schema


def main() -> None:
    with open(sys.argv[1], encoding="utf-8") as file:
        schemas = json.load(file)
    accepted = []
    for index, schema in enumerate(schemas):
        try:
            ensure_strict_json_schema(copy.deepcopy(schema))
        except (UserError, TypeError, ValueError, KeyError):
            continue
        accepted.append(index)
    chosen = [schemas[i] for i in accepted]
    print(json.dumps({"version": agents.__version__, "accepted": accepted}), flush=True)
    for line in sys.stdin:
        passes = int(line)
        with_copy = alone = None
        for _ in range(passes):
            start = time.perf_counter_ns()
            copies = [_copy_json_schema(schema) for schema in chosen]
            copied = time.perf_counter_ns()
            for schema in copies:
                ensure_strict_json_schema(schema)
            end = time.perf_counter_ns()
            with_copy = end - start if with_copy is None else min(with_copy, end - start)
            alone = end - copied if alone is None else min(alone, end - copied)
        print(with_copy, alone, flush=True)


if __name__ == "__main__":
    main()
