"""Helpers shared by attention_sdpa.py, attention_triton.py and norms.py.

- header(script, extra): the '#' environment lines (envinfo.py) plus cuDNN version.
- profile_kernels(fn): names, grid, block, duration of the CUDA kernels one call of fn
  launches (torch.profiler CUDA activity, read from the exported chrome trace, as
  cublas_sweep.py does); grid/block as "x;y;z".
- kernel_info(k): n_regs, n_spills, shared bytes of a Triton CompiledKernel.
- capture_graph(fn, calls): a CUDA graph of fn after warm-up on a side stream (llm_decode.py).
- replay_us(g, replays): microseconds a replay of a graph, timed over back-to-back replays.
"""
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "hw_profiles", "calibrate"))

import torch  # noqa: E402


def header(script, extra=None):
    from envinfo import header_lines
    d = dict(extra or {})
    try:
        d["cudnn"] = str(torch.backends.cudnn.version())
    except Exception as exc:  # pragma: no cover
        d["cudnn"] = f"unavailable ({exc})"
    return header_lines(script, d)


def profile_kernels(fn):
    """Kernel names and grid/block/duration of one call, from a chrome trace."""
    from torch.profiler import ProfilerActivity, profile
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    fd, path = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    try:
        prof.export_chrome_trace(path)
        with open(path) as f:
            trace = json.load(f)
    finally:
        os.unlink(path)
    evs = trace.get("traceEvents", []) if isinstance(trace, dict) else trace
    kern = [e for e in evs if e.get("ph") == "X" and e.get("cat") in ("kernel", "Kernel")]
    kern.sort(key=lambda e: e.get("ts", 0))
    names, grids, blocks, durs = [], [], [], []
    for e in kern:
        a = e.get("args", {})
        names.append(e.get("name", "?"))
        g = a.get("grid", "")
        b = a.get("block", "")
        grids.append(";".join(str(x) for x in g) if isinstance(g, list) else str(g))
        blocks.append(";".join(str(x) for x in b) if isinstance(b, list) else str(b))
        durs.append(f"{e.get('dur', 0)}")
    return names, grids, blocks, durs


def capture_graph(fn, calls=1):
    """A CUDA graph of `calls` calls of fn, after 3 warm-up calls on a side stream."""
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(s)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(calls):
            fn()
    return g


def replay_us(g, replays):
    """Microseconds a replay of CUDA graph g: `replays` back-to-back replays between two events."""
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    for _ in range(replays):
        g.replay()
    b.record()
    torch.cuda.synchronize()
    return a.elapsed_time(b) * 1000.0 / replays


def safe_profile(fn):
    """profile_kernels joined with '|', or empty strings if the profiler fails."""
    try:
        names, grids, blocks, durs = profile_kernels(fn)
        return "|".join(names), "|".join(grids), "|".join(blocks), "|".join(durs)
    except Exception as exc:
        print(f"  profiler failed: {type(exc).__name__}: {exc}", flush=True)
        return "", "", "", ""


def kernel_info(k):
    """n_regs, n_spills, shared bytes from a CompiledKernel, tolerant of API changes."""
    regs = spills = smem = ""
    if k is None:
        return regs, spills, smem
    try:
        if hasattr(k, "_init_handles"):
            k._init_handles()
    except Exception:
        pass
    for name in ("n_regs", "num_regs"):
        v = getattr(k, name, None)
        if v is not None:
            regs = v
            break
    for name in ("n_spills", "num_spills"):
        v = getattr(k, name, None)
        if v is not None:
            spills = v
            break
    md = getattr(k, "metadata", None)
    if md is not None:
        v = md.get("shared") if isinstance(md, dict) else getattr(md, "shared", None)
        if v is not None:
            smem = v
    if smem == "":
        v = getattr(k, "shared", None)
        if v is not None:
            smem = v
    return regs, spills, smem
