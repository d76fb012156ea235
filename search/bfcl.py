#!/usr/bin/env python3
"""Tool retrieval on the Berkeley Function Calling Leaderboard data: toolmodel and FastMCP.

The BFCL v4 categories simple_python, simple_java, simple_javascript, multiple, live_simple and
live_multiple (JSON Lines despite their .json ending, in <shared>/corpus/bfcl) are pooled into
one catalog: every distinct function, by name (the first definition met, categories in that
order, lines in file order), as an MCP tool whose inputSchema is the function's parameters with
BFCL's "type": "dict" written "object". Each question is a query: its user turn(s), without the
system prompt some live questions have. Its relevant tools are the function names of its
possible_answer ground truth.

Subcommands (search/run.sh runs them in this order):

  pool --out DIR
      writes DIR/catalog.json ({"tools": [...]}, for `toolmodel search`) and
      DIR/queries.jsonl ({"id", "query", "category", "relevant"} a line).
  fastmcp --catalog FILE --queries FILE [--limit K]
      FastMCP's BM25SearchTransform (PyPI fastmcp) searches the catalog, query by query, as its
      search_tools does (BM25SearchTransform._search, its index built on the first query); one
      JSON line per query on stdout, {"id", "tools": [names, best first], "scores": []} (the
      transform gives no scores), as `toolmodel search --format json` prints them; the run's
      time on stderr.
  score --queries FILE --ours FILE [--fastmcp FILE] [--misses N] [--gate]
      recall@5, recall@10 and MRR of each result file against the relevant tools, overall
      and per category; then the N worst misses of ours (relevant tool not in our top 10, or
      ranked lowest). The first line is exactly
        search: bfcl queries=<n> recall@5=<r> recall@10=<r> mrr=<r> fastmcp_recall@5=<r>
      With --gate: exit status 1 unless recall@5 >= 0.89 (GATE_RECALL_AT_5) and ours is above FastMCP's on every
      category (where FastMCP's is 1, ours must be 1 too: nothing is above it).
  time --catalog FILE --queries FILE [--sample N] [--search-sample M]
      per-query latency of FastMCP's index on the catalog (for the speed bench,
      toolmodel/benches/search.rs), over N queries spread evenly over the file (M for the whole
      search, which is slower), printed as
        fastmcp_query_p50_us=<t> fastmcp_search_p50_us=<t> fastmcp_index_ms=<t>
      where query is the BM25 ranking alone (_BM25Index.query), search the transform's whole
      _search (its catalog hash check, the ranking and the name lookup), index building the
      index once.

Only `fastmcp` and `time` import fastmcp; the others need Python 3.9+ alone.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time
from pathlib import Path

CATEGORIES = [
    "simple_python",
    "simple_java",
    "simple_javascript",
    "multiple",
    "live_simple",
    "live_multiple",
]
# The goal set for the ranking (issue 42), printed beside the figure, and the floor CI holds:
# the figure when the ranking was last tuned (0.892), rounded down, so that a change that
# loses recall fails CI while the goal is still ahead.
GOAL_RECALL_AT_5 = 0.90
GATE_RECALL_AT_5 = 0.89


class InputError(Exception):
    """A data file that is not what this script expects, with its file and line."""


def read_jsonl(path: Path) -> list[tuple[int, dict]]:
    """(line number, object) for each non-blank line of a JSON Lines file."""
    rows = []
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                value = json.loads(line)
            except json.JSONDecodeError as err:
                raise InputError(f"{path}:{number}:{err.colno}: {err.msg}") from None
            if not isinstance(value, dict):
                raise InputError(f"{path}:{number}: not a JSON object")
            rows.append((number, value))
    return rows


def objects_for_mcp(schema):
    """A BFCL parameters schema with every "type": "dict" written "object" (JSON Schema's
    name); everything else as it is."""
    if isinstance(schema, dict):
        out = {key: objects_for_mcp(value) for key, value in schema.items()}
        if out.get("type") == "dict":
            out["type"] = "object"
        return out
    if isinstance(schema, list):
        return [objects_for_mcp(value) for value in schema]
    return schema


def mcp_tool(function: dict) -> dict:
    """A BFCL function definition as an MCP tool."""
    tool = {"name": function["name"]}
    if function.get("description"):
        tool["description"] = function["description"]
    parameters = function.get("parameters") or {"type": "object", "properties": {}}
    tool["inputSchema"] = objects_for_mcp(parameters)
    return tool


def user_text(question, where: str) -> str:
    """The user turn(s) of a BFCL question ([[{role, content}, ...]]): the first turn's user
    messages, joined by a line break."""
    try:
        messages = question[0]
        text = "\n".join(m["content"] for m in messages if m.get("role") == "user")
    except (IndexError, KeyError, TypeError):
        raise InputError(f"{where}: question is not [[{{role, content}}, ...]]") from None
    if not text.strip():
        raise InputError(f"{where}: the question has no user message")
    return text


def pool(bfcl: Path) -> tuple[list[dict], list[dict]]:
    """The pooled catalog (MCP tools) and the queries, from the BFCL folder."""
    tools: dict[str, dict] = {}
    queries = []
    for category in CATEGORIES:
        questions = bfcl / f"BFCL_v4_{category}.json"
        answers_path = bfcl / "possible_answer" / f"BFCL_v4_{category}.json"
        answers = {}
        for number, row in read_jsonl(answers_path):
            try:
                answers[row["id"]] = [name for call in row["ground_truth"] for name in call]
            except (KeyError, TypeError):
                raise InputError(f"{answers_path}:{number}: no id or ground_truth") from None
        for number, row in read_jsonl(questions):
            where = f"{questions}:{number}"
            if "id" not in row or not isinstance(row.get("function"), list):
                raise InputError(f"{where}: no id or function list")
            for function in row["function"]:
                if not isinstance(function, dict) or not isinstance(function.get("name"), str):
                    raise InputError(f"{where}: a function without a name")
                tools.setdefault(function["name"], mcp_tool(function))
            relevant = answers.get(row["id"])
            if relevant is None:
                raise InputError(f"{where}: no possible answer for {row['id']!r} in {answers_path}")
            queries.append(
                {
                    "id": row["id"],
                    "query": user_text(row.get("question"), where),
                    "category": category,
                    "relevant": relevant,
                }
            )
    for query in queries:
        for name in query["relevant"]:
            if name not in tools:
                raise InputError(f"query {query['id']}: relevant tool {name!r} is in no function list")
    return list(tools.values()), queries


def command_pool(args) -> int:
    bfcl = Path(args.shared) / "corpus" / "bfcl"
    tools, queries = pool(bfcl)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "catalog.json").write_text(json.dumps({"tools": tools}, ensure_ascii=False), encoding="utf-8")
    with (out / "queries.jsonl").open("w", encoding="utf-8") as lines:
        for query in queries:
            lines.write(json.dumps(query, ensure_ascii=False) + "\n")
    print(f"pooled {len(tools)} tools and {len(queries)} queries from {bfcl} into {out}", file=sys.stderr)
    return 0


def fastmcp_tools(catalog: Path):
    """The catalog's tools as FastMCP `Tool`s (name, description, parameters)."""
    import logging

    from fastmcp.tools.base import Tool

    # FastMCP warns (SEP-986) about names it finds unusual; the catalog's are BFCL's own.
    logging.getLogger("fastmcp").setLevel(logging.ERROR)
    listed = json.loads(catalog.read_text(encoding="utf-8"))["tools"]
    return [
        Tool(name=t["name"], description=t.get("description"), parameters=t["inputSchema"])
        for t in listed
    ]


def command_fastmcp(args) -> int:
    import asyncio

    from fastmcp.server.transforms.search import BM25SearchTransform

    tools = fastmcp_tools(Path(args.catalog))
    queries = [row for _, row in read_jsonl(Path(args.queries))]
    transform = BM25SearchTransform(max_results=args.limit)

    async def run():
        out = []
        for query in queries:
            found = await transform._search(tools, query["query"])
            out.append({"id": query["id"], "tools": [tool.name for tool in found], "scores": []})
        return out

    started = time.perf_counter()
    results = asyncio.run(run())
    elapsed = time.perf_counter() - started
    for result in results:
        print(json.dumps(result, ensure_ascii=False))
    print(
        f"fastmcp: {len(tools)} tools, {len(queries)} queries in {elapsed:.1f} s",
        file=sys.stderr,
    )
    return 0


def spread(items: list, count: int) -> list:
    """`count` items spread evenly over `items` (all of them when there are fewer)."""
    if count <= 0 or count >= len(items):
        return items
    return [items[i * len(items) // count] for i in range(count)]


def command_time(args) -> int:
    import asyncio

    from fastmcp.server.transforms.search import BM25SearchTransform
    from fastmcp.server.transforms.search.base import _extract_searchable_text
    from fastmcp.server.transforms.search.bm25 import _BM25Index

    tools = fastmcp_tools(Path(args.catalog))
    texts = [row["query"] for _, row in read_jsonl(Path(args.queries))]
    started = time.perf_counter()
    index = _BM25Index()
    index.build([_extract_searchable_text(tool) for tool in tools])
    index_ms = (time.perf_counter() - started) * 1e3

    def p50_us(timings):
        return statistics.median(timings) * 1e6

    ranking = []
    for text in spread(texts, args.sample):
        started = time.perf_counter()
        index.query(text, 10)
        ranking.append(time.perf_counter() - started)

    transform = BM25SearchTransform(max_results=10)

    async def searches():
        await transform._search(tools, texts[0])  # builds the index
        timings = []
        for text in spread(texts, args.search_sample):
            started = time.perf_counter()
            await transform._search(tools, text)
            timings.append(time.perf_counter() - started)
        return timings

    whole = asyncio.run(searches())
    print(
        f"fastmcp_query_p50_us={p50_us(ranking):.0f} fastmcp_search_p50_us={p50_us(whole):.0f} "
        f"fastmcp_index_ms={index_ms:.0f} tools={len(tools)} queries={len(texts)}"
    )
    return 0


def ranks(queries: list[dict], results_path: Path) -> dict[str, int | None]:
    """For each query id, the 1-based rank of its best-ranked relevant tool in the results
    file (None when absent)."""
    results = {}
    for number, row in read_jsonl(results_path):
        if "id" not in row or not isinstance(row.get("tools"), list):
            raise InputError(f"{results_path}:{number}: not {{\"id\", \"tools\": [...]}}")
        results[row["id"]] = row["tools"]
    out = {}
    for query in queries:
        if query["id"] not in results:
            raise InputError(f"{results_path}: no result for query {query['id']!r}")
        found = results[query["id"]]
        positions = [found.index(name) + 1 for name in query["relevant"] if name in found]
        out[query["id"]] = min(positions) if positions else None
    return out


def metrics(queries: list[dict], rank: dict[str, int | None]) -> dict[str, float]:
    n = len(queries)
    if n == 0:
        return {"recall@5": math.nan, "recall@10": math.nan, "mrr": math.nan}

    def within(k):
        return sum(1 for q in queries if rank[q["id"]] is not None and rank[q["id"]] <= k) / n

    mrr = sum(1 / rank[q["id"]] for q in queries if rank[q["id"]] is not None) / n
    return {"recall@5": within(5), "recall@10": within(10), "mrr": mrr}


def beats(ours: float, theirs: float) -> bool:
    """Whether our recall is above FastMCP's: strictly, except where FastMCP's is already 1
    (simple_java and simple_javascript), where ours must be 1 too."""
    return ours > theirs or ours == theirs == 1.0


def command_score(args) -> int:
    queries = [row for _, row in read_jsonl(Path(args.queries))]
    ours = ranks(queries, Path(args.ours))
    theirs = ranks(queries, Path(args.fastmcp)) if args.fastmcp else None
    total = metrics(queries, ours)
    fastmcp_total = metrics(queries, theirs) if theirs else None
    fastmcp_r5 = f"{fastmcp_total['recall@5']:.3f}" if fastmcp_total else "skipped"
    print(
        f"search: bfcl queries={len(queries)} recall@5={total['recall@5']:.3f} "
        f"recall@10={total['recall@10']:.3f} mrr={total['mrr']:.3f} fastmcp_recall@5={fastmcp_r5}"
    )
    if fastmcp_total:
        print(
            f"fastmcp: recall@5={fastmcp_total['recall@5']:.3f} "
            f"recall@10={fastmcp_total['recall@10']:.3f} mrr={fastmcp_total['mrr']:.3f}"
        )
    met = "met" if total["recall@5"] >= GOAL_RECALL_AT_5 else "not met"
    print(f"goal: recall@5 >= {GOAL_RECALL_AT_5} {met}; CI's floor {GATE_RECALL_AT_5}")
    print(f"{'category':<18} {'queries':>7} {'recall@5':>9} {'fastmcp':>8} {'recall@10':>10} {'fastmcp':>8}")
    behind = []
    for category in CATEGORIES:
        subset = [q for q in queries if q["category"] == category]
        ours_c = metrics(subset, ours)
        line = f"{category:<18} {len(subset):>7} {ours_c['recall@5']:>9.3f}"
        if theirs:
            theirs_c = metrics(subset, theirs)
            line += f" {theirs_c['recall@5']:>8.3f} {ours_c['recall@10']:>10.3f} {theirs_c['recall@10']:>8.3f}"
            if not beats(ours_c["recall@5"], theirs_c["recall@5"]):
                behind.append(category)
        else:
            line += f" {'-':>8} {ours_c['recall@10']:>10.3f} {'-':>8}"
        print(line)
    if args.misses:
        missed = [q for q in queries if ours[q["id"]] is None or ours[q["id"]] > 1]

        def badness(query):
            # Worst first: not found at all, then found lowest; among equals, those FastMCP
            # ranks best (what it finds and we do not) first; ties in file order.
            rank = ours[query["id"]] or 1_000_000
            fastmcp_rank = (theirs[query["id"]] if theirs else None) or 1_000_000
            return (-rank, fastmcp_rank)

        missed.sort(key=badness)
        print(f"worst misses ({min(args.misses, len(missed))} of {len(missed)} queries whose relevant tool is not first):")
        results = {row["id"]: row["tools"] for _, row in read_jsonl(Path(args.ours))}
        for query in missed[: args.misses]:
            rank = ours[query["id"]]
            text = " ".join(query["query"].split())
            if len(text) > 140:
                text = text[:139] + "…"
            fastmcp_rank = theirs[query["id"]] if theirs else None
            print(
                f"  {query['id']}: want {', '.join(query['relevant'])} "
                f"(ours {'-' if rank is None else '#' + str(rank)}, "
                f"fastmcp {'-' if fastmcp_rank is None else '#' + str(fastmcp_rank)}); "
                f"got {', '.join(results[query['id']][:3]) or '(nothing)'}\n      {text}"
            )
    if not args.gate:
        return 0
    failed = []
    if not total["recall@5"] >= GATE_RECALL_AT_5:
        failed.append(f"recall@5 {total['recall@5']:.3f} < {GATE_RECALL_AT_5}")
    if theirs is None:
        failed.append("no FastMCP results to compare with")
    elif behind:
        failed.append(f"recall@5 not above FastMCP's on {', '.join(behind)}")
    for reason in failed:
        print(f"gate: {reason}", file=sys.stderr)
    return 1 if failed else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    p = commands.add_parser("pool")
    p.add_argument("--shared", default=os.environ.get("TOOLMODEL_SHARED", "../shared"))
    p.add_argument("--out", required=True)
    p.set_defaults(run=command_pool)
    p = commands.add_parser("fastmcp")
    p.add_argument("--catalog", required=True)
    p.add_argument("--queries", required=True)
    p.add_argument("--limit", type=int, default=10)
    p.set_defaults(run=command_fastmcp)
    p = commands.add_parser("score")
    p.add_argument("--queries", required=True)
    p.add_argument("--ours", required=True)
    p.add_argument("--fastmcp")
    p.add_argument("--misses", type=int, default=0)
    p.add_argument("--gate", action="store_true")
    p.set_defaults(run=command_score)
    p = commands.add_parser("time")
    p.add_argument("--catalog", required=True)
    p.add_argument("--queries", required=True)
    p.add_argument("--sample", type=int, default=500, help="queries timed (0: all)")
    p.add_argument("--search-sample", type=int, default=50, help="queries timed through the whole _search (0: all)")
    p.set_defaults(run=command_time)
    args = parser.parse_args()
    try:
        return args.run(args)
    except InputError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
