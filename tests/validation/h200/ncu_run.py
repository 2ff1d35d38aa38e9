"""What the ncu scripts of the corpus kernel share: run a script's `target` mode under Nsight
Compute (one profiled launch per case, in the order the script prints CASE_OK lines), read
ncu's raw CSV, and read the blocked layouts of a TTGIR's operations.

Used by ncu_wrapped.py, ncu_hot_columns.py and hw_profiles/calibrate/staged_l1.py; profile_marked
and run_marked (its target side: cases split by a marker kernel) by ncu_cublas_l2.py,
ncu_fabric.py, ncu_tma_burst.py and hw_profiles/calibrate/l2_cyclic_ncu.py.
"""
import csv
import io
import os
import re
import subprocess
import sys
import time

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


def run_marked(makers, warm=True):
    """The target side of profile_marked: for case i, makers[i]() gives the call to profile; a
    one-element `ncu_case_marker` kernel goes before it, and one after the last case. warm: call
    it once before the marker too (compilation, the algorithm's choice; that call lands after the
    previous case's and is dropped by the reader). A case that cannot run prints CASE_FAIL and
    the rest go on; each that ran prints CASE_OK i."""
    import torch
    import triton
    import triton.language as tl

    @triton.jit
    def ncu_case_marker(x):
        tl.store(x, tl.load(x) + 1)

    mark = torch.zeros(1, device="cuda")
    for i, make in enumerate(makers):
        try:
            fn = make()
            if warm:
                fn()
            torch.cuda.synchronize()
            ncu_case_marker[(1,)](mark)
            torch.cuda.synchronize()
            fn()
            torch.cuda.synchronize()
            print(f"CASE_OK {i}", flush=True)
        except Exception as exc:  # a case that cannot run is reported, the rest go on
            print(f"CASE_FAIL {i} {type(exc).__name__}: {exc}", flush=True)
        finally:
            torch.cuda.empty_cache()
    ncu_case_marker[(1,)](mark)
    torch.cuda.synchronize()


def profile_marked(script, metrics, kernels, raw, timeout):
    """Runs `python3 script target` under ncu (kernels: ncu's --kernel-name, which must match
    the script's `ncu_case_marker` kernel too) and returns (the case indices the script printed
    CASE_OK for, ncu's rows split at the markers: the kernels after the i-th marker and before
    the next belong to case i), and the ncu command."""
    ncu = os.environ.get("NCU", "ncu")
    cmd = [ncu, "--clock-control", "none", "--kernel-name", kernels, "--csv", "--page", "raw",
           "--print-units", "base", "--log-file", raw, "--metrics", ",".join(metrics),
           sys.executable, os.path.abspath(script), "target"]
    print(" ".join(cmd), flush=True)
    t0 = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    print(p.stdout[-2000:], p.stderr[-2000:], f"ncu rc={p.returncode} in {time.time() - t0:.1f} s", flush=True)
    ok = {int(ln.split()[1]) for ln in p.stdout.splitlines() if ln.startswith("CASE_OK")}
    rows = parse_ncu(open(raw).read()) if os.path.exists(raw) else []
    calls, cur = [], None
    for r in rows:
        if "ncu_case_marker" in str(r.get("Kernel Name", "")):
            if cur is not None:
                calls.append(cur)
            cur = []
        elif cur is not None:
            cur.append(r)
    return ok, calls, cmd


def num(d, k):
    """A metric of one ncu row, 0 where ncu gave none."""
    v = d.get(k)
    return v if isinstance(v, float) else 0.0


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
