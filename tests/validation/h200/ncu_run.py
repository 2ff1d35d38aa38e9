"""What the ncu scripts of the corpus kernel share: run a script's `target` mode under Nsight
Compute (one profiled launch per case, in the order the script prints CASE_OK lines), read
ncu's raw CSV, and read the blocked layouts of a TTGIR's operations.

Used by ncu_wrapped.py, ncu_hot_columns.py and hw_profiles/calibrate/staged_l1.py.
"""
import csv
import io
import os
import re
import subprocess
import sys

SCALE = {"byte": 1, "kbyte": 1e3, "mbyte": 1e6, "nsecond": 1, "usecond": 1e3, "msecond": 1e6}


def parse_ncu(text):
    """Rows of ncu's `--csv --page raw` output as {metric: value}, values in base units."""
    lines = text.splitlines()
    start = next((i for i, ln in enumerate(lines) if ln.startswith('"ID"')), None)
    if start is None:
        return []
    rows = list(csv.reader(io.StringIO("\n".join(lines[start:]))))
    header, units, out = rows[0], rows[1], []
    for r in rows[2:]:
        if len(r) != len(header):
            continue
        d = {}
        for h, u, v in zip(header, units, r):
            try:
                d[h] = float(v.replace(",", "")) * SCALE.get(u.strip().lower(), 1)
            except ValueError:
                d[h] = v
        out.append(d)
    return out


def profile_cases(script, metrics, raw, timeout, fields=10, extra=()):
    """Runs `python3 script target [extra...]` under ncu (matmul_kernel launches, clocks as
    found) and returns (the first `fields` words after each CASE_OK, ncu's rows), in launch
    order."""
    ncu = os.environ.get("NCU", "ncu")
    cmd = [ncu, "--clock-control", "none", "--kernel-name", "regex:matmul_kernel", "--csv", "--page", "raw",
           "--print-units", "base", "--log-file", raw, "--metrics", ",".join(metrics), sys.executable,
           os.path.abspath(script), "target", *extra]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    print(p.stdout[-800:], p.stderr[-800:], f"ncu rc={p.returncode}", flush=True)
    ok = [ln.split()[1:1 + fields] for ln in p.stdout.splitlines() if ln.startswith("CASE_OK")]
    rows = parse_ncu(open(raw).read()) if os.path.exists(raw) else []
    return ok, rows


LAYOUT = re.compile(r"^(#[\w]+) = #ttg\.blocked<\{sizePerThread = \[([\d, ]+)\], threadsPerWarp = "
                    r"\[([\d, ]+)\], warpsPerCTA = \[([\d, ]+)\], order = \[([\d, ]+)\]", re.M)


def blocked_layouts(ttgir, op):
    """'RxC spt=a,b tpw=a,b wpc=a,b ord=a,b' of each distinct bf16 pointer tensor the TTGIR
    operation `op` (a regex, e.g. r"tt\\.load") takes, in order, ';'-joined."""
    layouts = {m[0]: f"spt={m[1]} tpw={m[2]} wpc={m[3]} ord={m[4]}".replace(", ", ",")
               for m in LAYOUT.findall(ttgir)}
    seen = []
    for r, c, name in re.findall(op + r"[^\n]*?tensor<(\d+)x(\d+)x!tt\.ptr<bf16>, (#\w+)>", ttgir):
        s = f"{r}x{c} {layouts.get(name, name)}"
        if s not in seen:
            seen.append(s)
    return ";".join(seen)


def metric_cells(d, metrics):
    """One CSV cell per metric: 6 significant digits, empty where ncu gave none."""
    return [f"{d[m]:.6g}" if isinstance(d.get(m), float) else "" for m in metrics]
