#!/usr/bin/env python3
"""Bad and extreme plans never crash or hang tilesight-cli (DESIGN.md: "never a crash or a hang").

  TILESIGHT_CLI=build/bin/tilesight-cli python3 tests/cli/fuzz_plans.py [--seeds 3] [--lines 400]

Each seed writes a JSONL batch of the shipped examples (resources/examples/*.json) with one to
four fields changed, in one of two ways:
  - any field replaced by a wrong or edge value (0, -1, 1e18, "", null, [], {}, ...) or dropped:
    the plan must be refused with an error line, or predicted;
  - a number scaled by 0.01-1000 (sizes, tiles, batch, heads, ...): most stay valid, some huge
    (an rmsnorm of 10^8 rows, a causal attention of 10^7 blocks), and those must be predicted
    in a time that does not grow with their size (the ctest's timeout guards it).
and runs it through `predict --jsonl`. Fails where the exit status is not 0 or 2, a line has no
result, or a result has a latency that is not a positive finite number. Deterministic: the same
seeds give the same plans. Plain Python, no packages.
"""
import argparse
import glob
import json
import math
import os
import random
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BAD = [0, -1, 1, 2, 3, 7, 17, 1e18, -1e18, 1.5, 1e-300, 2**31, 2**63 - 1, 65536, 100000,
       "x", "", None, True, [], {}, [1, 2], "bf16", "h200"]
SCALES = [0.01, 0.1, 1 / 3, 0.5, 0.75, 1.5, 2, 3, 7, 10, 100, 1000]


def paths(o, p=()):
    if p:
        yield p
    if isinstance(o, dict):
        for k, v in o.items():
            yield from paths(v, p + (k,))
    elif isinstance(o, list):
        for i, v in enumerate(o):
            yield from paths(v, p + (i,))


def parent_of(doc, p):
    for k in p[:-1]:
        doc = doc[k]
    return doc


def break_fields(rng, doc):
    for _ in range(rng.randint(1, 3)):
        ps = list(paths(doc))
        if not ps:
            return
        p = rng.choice(ps)
        parent = parent_of(doc, p)
        if rng.random() < 0.15:
            if isinstance(parent, dict):
                parent.pop(p[-1], None)
            else:
                parent.pop(p[-1])
        else:
            parent[p[-1]] = json.loads(json.dumps(rng.choice(BAD)))


def scale_numbers(rng, doc):
    ps = [p for p in paths(doc)
          if isinstance(parent_of(doc, p)[p[-1]], (int, float)) and not isinstance(parent_of(doc, p)[p[-1]], bool)]
    for _ in range(rng.randint(1, 4)):
        if not ps:
            return
        p = rng.choice(ps)
        parent = parent_of(doc, p)
        v = parent[p[-1]] * rng.choice(SCALES)
        parent[p[-1]] = int(round(v)) if isinstance(parent[p[-1]], int) else v


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--lines", type=int, default=400)
    args = ap.parse_args()
    cli = os.environ.get("TILESIGHT_CLI", os.path.join(ROOT, "build", "bin", "tilesight-cli"))
    examples = [json.load(open(f)) for f in sorted(glob.glob(os.path.join(ROOT, "resources", "examples", "*.json")))]
    failed = 0
    for seed in range(1, args.seeds + 1):
        for mutate in (break_fields, scale_numbers):
            rng = random.Random(seed * 1000 + (mutate is scale_numbers))
            lines = []
            for _ in range(args.lines):
                doc = json.loads(json.dumps(rng.choice(examples)))
                mutate(rng, doc)
                lines.append(json.dumps(doc))
            r = subprocess.run([cli, "predict", "--jsonl", "-"], input="\n".join(lines) + "\n",
                               capture_output=True, text=True)
            out = r.stdout.splitlines()
            bad = []
            if r.returncode not in (0, 2):
                bad.append(f"exit status {r.returncode}: {r.stderr[-400:]}")
            if len(out) != len(lines):
                bad.append(f"{len(out)} results for {len(lines)} lines")
            for i, line in enumerate(out):
                result = json.loads(line)
                if "error" in result:
                    continue
                latency = result.get("latency_us")
                if not isinstance(latency, (int, float)) or not math.isfinite(latency) or latency <= 0:
                    bad.append(f"line {i + 1}: latency_us {latency!r} for {lines[i][:200]}")
            errors = sum('"error"' in line for line in out)
            name = f"seed {seed}, {mutate.__name__}"
            print(f"{name}: {len(lines)} plans, {len(out) - errors} predicted, {errors} refused"
                  + (": FAIL" if bad else ""))
            for b in bad[:5]:
                print("  " + b)
            failed += bool(bad)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
