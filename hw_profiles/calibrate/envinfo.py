"""Environment header for every measured CSV (GPU, clocks, driver, CUDA, torch, triton, date).

Usage from Python:  from envinfo import header_lines;  f.write(header_lines("bw_sweep.py"))
Usage from shell:   python3 envinfo.py SCRIPT_NAME > header.txt   (then append CSV rows)
Every line it returns starts with '#', so CSV readers skip it with comment='#'.
"""
import datetime
import os
import platform
import subprocess
import sys


def _sh(cmd):
    try:
        return subprocess.run(cmd, shell=True, capture_output=True, text=True,
                              timeout=30).stdout.strip()
    except Exception as exc:  # pragma: no cover - best effort
        return f"unavailable ({exc})"


def env_dict(script=""):
    d = {}
    d["script"] = script
    d["date_utc"] = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    d["nvidia_smi"] = _sh("nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,"
                          "clocks.max.mem,power.draw,power.limit,temperature.gpu "
                          "--format=csv,noheader")
    d["driver"] = _sh("nvidia-smi --query-gpu=driver_version --format=csv,noheader")
    d["nvcc"] = _sh("nvcc --version | tail -1")
    try:
        import torch
        d["torch"] = torch.__version__
        d["torch_cuda"] = torch.version.cuda
        if torch.cuda.is_available():
            p = torch.cuda.get_device_properties(0)
            d["gpu"] = f"{p.name}, {p.multi_processor_count} SMs, " \
                       f"{getattr(p, 'L2_cache_size', 0) / 2**20:.0f} MiB L2, " \
                       f"{p.total_memory / 2**30:.1f} GiB, cc {p.major}.{p.minor}"
    except Exception as exc:
        d["torch"] = f"unavailable ({exc})"
    try:
        import triton
        d["triton"] = triton.__version__
    except Exception as exc:
        d["triton"] = f"unavailable ({exc})"
    d["python"] = platform.python_version()
    d["host_kernel"] = platform.release()
    return d


def header_lines(script="", extra=None):
    d = env_dict(script)
    if extra:
        d.update(extra)
    # A value of several lines (nvidia-smi on a host of several GPUs) keeps every line a comment.
    return "".join(f"# {k}: " + str(v).replace("\n", "\n#   ") + "\n" for k, v in d.items())


if __name__ == "__main__":
    sys.stdout.write(header_lines(sys.argv[1] if len(sys.argv) > 1 else ""))
