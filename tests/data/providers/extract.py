#!/usr/bin/env python3
"""Extracts the provider schemas the toolmodel tests validate against (see README.md here).

    python3 extract.py openai OPENAPI_JSON > openai.schema.json
    python3 extract.py gemini OPENAPI_JSON > gemini.schema.json

Keeps the named component schemas and everything they reference (`$ref` closure), moves
`#/components/schemas/X` to `#/$defs/X`, and (Gemini: OpenAPI 3.0) turns `nullable: true` into
JSON Schema 2020-12: `type: T` becomes `type: [T, "null"]`, a schema without `type` becomes
`anyOf: [schema, {"type": "null"}]`. OpenAI's one use of the 2019-09 `$recursiveAnchor: true`
/ `$recursiveRef: "#"` (a `CompoundFilter` nests itself) becomes `$ref: "#/$defs/<that schema>"`,
since 2020-12 has no `$recursiveRef`. Nothing else is changed.
"""
import json
import sys

ROOTS = {
    "openai": [
        "CreateChatCompletionRequest", "ChatCompletionTool", "ChatCompletionRequestToolMessage",
        "ChatCompletionMessageToolCall", "CreateResponse", "FunctionToolParam",
        "NamespaceToolParam", "FunctionToolCall", "FunctionCallOutputItemParam",
    ],
    "gemini": [
        "GenerateContentRequest", "Tool", "FunctionDeclaration", "Content", "Part",
        "FunctionCall", "FunctionResponse",
    ],
}


def closure(schemas, roots):
    seen, stack = {}, list(roots)
    while stack:
        name = stack.pop()
        if name in seen:
            continue
        seen[name] = schemas[name]

        def walk(value):
            if isinstance(value, dict):
                for key, item in value.items():
                    if key == "$ref" and isinstance(item, str):
                        stack.append(item.rsplit("/", 1)[-1])
                    else:
                        walk(item)
            elif isinstance(value, list):
                for item in value:
                    walk(item)

        walk(schemas[name])
    return dict(sorted(seen.items()))


def rewrite(value):
    if isinstance(value, list):
        return [rewrite(item) for item in value]
    if not isinstance(value, dict):
        return value
    out = {}
    for key, item in value.items():
        if key == "$ref" and isinstance(item, str):
            out[key] = item.replace("#/components/schemas/", "#/$defs/")
        elif key == "properties" and isinstance(item, dict):
            out[key] = {name: rewrite(schema) for name, schema in item.items()}
        else:
            out[key] = rewrite(item)
    if out.get("nullable") is True:
        del out["nullable"]
        kind = out.get("type")
        if isinstance(kind, str):
            out["type"] = [kind, "null"]
        elif kind is None:
            out = {"anyOf": [out, {"type": "null"}]}
    elif out.get("nullable") is False:
        del out["nullable"]
    return out


def main():
    which, path = sys.argv[1], sys.argv[2]
    with open(path) as f:
        document = json.load(f)
    defs = closure(document["components"]["schemas"], ROOTS[which])
    for name, schema in defs.items():
        if schema.get("$recursiveAnchor") is True:
            schema = dict(schema)
            del schema["$recursiveAnchor"]
            text = json.dumps(schema).replace(
                '"$recursiveRef": "#"', '"$ref": "#/components/schemas/%s"' % name
            )
            defs[name] = json.loads(text)
    out = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$comment": f"extracted from {document.get('info', {}).get('title')} "
        f"{document.get('info', {}).get('version')} by extract.py",
        "$defs": rewrite(defs),
    }
    json.dump(out, sys.stdout, indent=1, sort_keys=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
