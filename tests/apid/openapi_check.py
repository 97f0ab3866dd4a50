#!/usr/bin/env python3
"""openapi_check.py API.yaml ROUTES.txt [BASE_URL] -- docs/api.yaml against
zkslot-apid (standard library only).

Parses the YAML subset docs/api.yaml is written in, checks it is an
OpenAPI 3 document (openapi, info, paths; every operation has an
operationId, unique, and responses; every $ref resolves), then that the
operations are exactly the routes of `zkslot-apid --routes` (ROUTES.txt,
"METHOD /path/{param}" lines), and, given BASE_URL of a running apid,
that the server answers every documented operation with a route (no
no_route / method_not_allowed) and refuses a path that is not there, and
that POST /v1/jobs takes exactly the documented body types, Submit's
properties and the documented query parameters of an upload.
Exit 0, or 1 with one line per problem."""
import json
import re
import sys
import urllib.error
import urllib.request


def lines_of(text):
    out = []
    for raw in text.splitlines():
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        out.append((len(raw) - len(raw.lstrip(" ")), raw.strip()))
    return out


def scalar(s):
    if s.startswith('"'):
        return json.loads(s)
    if s.startswith("'"):
        return s[1:-1].replace("''", "'")
    if s.startswith("["):
        inner = s[1:-1].strip()
        return [scalar(x.strip()) for x in inner.split(",")] if inner else []
    if s.startswith("{") and s.endswith("}") and s[1:-1].strip() == "":
        return {}
    if re.fullmatch(r"-?[0-9]+", s):
        return int(s)
    return {"true": True, "false": False, "null": None}.get(s, s)


class YamlSubset:
    def __init__(self, text):
        self.l = lines_of(text)
        self.i = 0

    def block(self, indent):
        if self.i >= len(self.l):
            return None
        if self.l[self.i][1].startswith("- "):
            return self.seq(self.l[self.i][0])
        return self.mapping(self.l[self.i][0])

    def folded(self, indent):
        parts = []
        while self.i < len(self.l) and self.l[self.i][0] > indent:
            parts.append(self.l[self.i][1])
            self.i += 1
        return " ".join(parts)

    def value(self, rest, indent):
        if rest in (">-", ">", "|"):
            return self.folded(indent)
        if rest:
            return scalar(rest)
        if self.i < len(self.l) and (self.l[self.i][0] > indent or
                                     (self.l[self.i][0] == indent and
                                      self.l[self.i][1].startswith("- "))):
            return self.block(self.l[self.i][0])
        return None

    def mapping(self, indent):
        m = {}
        while self.i < len(self.l) and self.l[self.i][0] == indent and \
                not self.l[self.i][1].startswith("- "):
            text = self.l[self.i][1]
            mt = re.match(r'("[^"]*"|[^:]+):(?:\s+(.*))?$', text)
            if not mt:
                raise ValueError("line %d: not 'key: value': %s" % (self.i + 1, text))
            key = scalar(mt.group(1))
            self.i += 1
            if key in m:
                raise ValueError("key %r twice" % key)
            m[str(key)] = self.value((mt.group(2) or "").strip(), indent)
        return m

    def seq(self, indent):
        s = []
        while self.i < len(self.l) and self.l[self.i][0] == indent and \
                self.l[self.i][1].startswith("- "):
            # the item's first line becomes a line of its own mapping
            self.l[self.i] = (indent + 2, self.l[self.i][1][2:])
            if ":" in self.l[self.i][1]:
                s.append(self.mapping(indent + 2))
            else:
                s.append(scalar(self.l[self.i][1]))
                self.i += 1
        return s


def post(url, data, ctype):
    """(status, error code, error message) of one POST."""
    req = urllib.request.Request(url, method="POST", data=data,
                                 headers={"Content-Type": ctype})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            status, body = r.status, r.read()
    except urllib.error.HTTPError as e:
        status, body = e.code, e.read()
    try:
        e = json.loads(body).get("error", {})
        return status, e.get("code", ""), e.get("message", "")
    except (ValueError, AttributeError):
        return status, "", ""


def listed(message):
    """The names in the last (a, b, c) of a refusal's message."""
    m = re.findall(r"\(([a-z_, ]+)\)", message)
    return set(x.strip() for x in m[-1].split(",")) if m else set()


def body_checks(doc, base):
    """POST /v1/jobs: every documented body type is taken and no other
    (415); the fields the server knows are Submit's properties; the query
    parameters it takes with an upload are the documented ones."""
    bad = []
    op = doc["paths"]["/v1/jobs"]["post"]
    types = set(op["requestBody"]["content"])
    for t in sorted(types | {"application/json", "application/octet-stream", "text/plain",
                             "multipart/form-data"}):
        status, code, _ = post(base + "/v1/jobs", b"{}", t)
        if (status == 415) != (t not in types):
            bad.append("POST /v1/jobs with %s: %d %s" % (t, status, code))
    props = set(doc["components"]["schemas"]["Submit"]["properties"])
    _, _, msg = post(base + "/v1/jobs", b'{"zz_not_a_field": 1}', "application/json")
    if listed(msg) != props:
        bad.append("Submit's properties %s, the server's fields %s" %
                   (sorted(props), sorted(listed(msg))))
    params = set(p["name"] for p in op.get("parameters", []) if p.get("in") == "query")
    _, _, msg = post(base + "/v1/jobs?zz_not_a_parameter=1", b"wtns", "application/octet-stream")
    if listed(msg) != params:
        bad.append("POST /v1/jobs's query parameters %s, the server's %s" %
                   (sorted(params), sorted(listed(msg))))
    return bad


def main():
    doc = YamlSubset(open(sys.argv[1]).read()).mapping(0)
    routes = set()
    for line in open(sys.argv[2]):
        if line.strip():
            m, p = line.split()
            routes.add((m.upper(), p))
    bad = []
    if not str(doc.get("openapi", "")).startswith("3."):
        bad.append("openapi: not 3.x")
    for f in ("title", "version"):
        if not (doc.get("info") or {}).get(f):
            bad.append("info.%s missing" % f)

    def refs(o):
        if isinstance(o, dict):
            for k, v in o.items():
                if k == "$ref":
                    yield v
                else:
                    yield from refs(v)
        elif isinstance(o, list):
            for v in o:
                yield from refs(v)
    for r in refs(doc):
        node = doc
        for part in r.lstrip("#/").split("/"):
            node = node.get(part) if isinstance(node, dict) else None
        if node is None:
            bad.append("$ref %s does not resolve" % r)
    documented, ids = set(), set()
    for path, item in (doc.get("paths") or {}).items():
        for method, op in item.items():
            if method == "parameters":
                continue
            documented.add((method.upper(), path))
            if not op.get("responses"):
                bad.append("%s %s: no responses" % (method.upper(), path))
            oid = op.get("operationId")
            if not oid or oid in ids:
                bad.append("%s %s: operationId missing or repeated" % (method.upper(), path))
            ids.add(oid)
    for m, p in sorted(routes - documented):
        bad.append("the server answers %s %s, not in the document" % (m, p))
    for m, p in sorted(documented - routes):
        bad.append("the document has %s %s, not answered by the server" % (m, p))
    if len(sys.argv) > 3:
        base = sys.argv[3]
        for m, p in sorted(documented) + [("GET", "/v1/undocumented")]:
            url = base + re.sub(r"\{[^}]*\}", lambda x: {"{id}": "1", "{k}": "0"}.get(
                x.group(0), "x"), p)
            req = urllib.request.Request(url, method=m, data=b"{}" if m == "POST" else None,
                                         headers={"Content-Type": "application/json"})
            try:
                with urllib.request.urlopen(req, timeout=10) as r:
                    status, body = r.status, r.read()
            except urllib.error.HTTPError as e:
                status, body = e.code, e.read()
            code = ""
            try:
                code = json.loads(body).get("error", {}).get("code", "")
            except (ValueError, AttributeError):
                pass
            routed = code not in ("no_route", "method_not_allowed")
            if p == "/v1/undocumented":
                if routed:
                    bad.append("GET /v1/undocumented answered %d %s, not no_route" % (status, code))
            elif not routed:
                bad.append("%s %s: the server answered %d %s" % (m, p, status, code))
        bad += body_checks(doc, base)
    for b in bad:
        print("openapi_check: " + b)
    print("openapi_check: %d operations, %d routes, %d problem(s)" %
          (len(documented), len(routes), len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
