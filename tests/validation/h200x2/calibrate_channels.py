#!/usr/bin/env python3
"""The "nccl_channels" block of hw_profiles/h200x2.json from NCCL's own facts on this machine
(nccl_channels.py: channels.csv and the log excerpt nccl_channels_log.txt), not from the
collectives corpus, which stays the check (tilesight-cli validate collectives.csv).

  ring, p2p          "24 coll channels, ... 32 p2p channels" (NCCL's init line)
  bytes_per_channel  ring thread threshold x threads per CTA per protocol ("threadThresholds
                     8/8/64 | 16/8/64" ring LL/LL128/Simple, "Max NThreads" 512/640/512):
                     NCCL adds a channel per that many bytes of the buffer. Checked here
                     against the channel{Lo..Hi} NCCL printed for every tuning-phase call.
  send_gbps          per collective and protocol, what k forced channels send per GPU
                     (nccl-tests busbw bytes: S for all_reduce, S/2 otherwise on two ranks):
                     Simple from the slope between 64 MiB and 512 MiB (no launch or
                     latency in it); LL and LL128 (one size) from 64 MiB less the profile's
                     launch_us and 2 x alpha_us per ring step (small-message calibration).
  send_gbps_by_bytes Simple, per collective and measured size (channel_sizes.py: 4 MiB - 4 GiB
                     at k = 4, 8, 16, 32; channels.csv adds 512 MiB and, at 64 MiB, a second
                     timing, averaged): what k channels send at that size, the bytes a GPU
                     sends over the time less what the model charges besides (launch_us and
                     2 x alpha_us per ring step; all_to_all, NCCL's p2p kernel: p2p_launch_us
                     and its one step's 2 x alpha_us); the lone channel (k = 1, size-independent:
                     15.07 vs 15.19 GB/s at 64 and 512 MiB for all_gather) from send_gbps. A size
                     is kept only where every k's time is at least 30% bytes (4 MiB is not).
                     send_recv: NCCL's p2p kernel on its own 32 p2p channels, one [32, GB/s]
                     point per size: the bytes over the time less p2p_launch_us and one step's
                     2 x alpha_us; 4 - 64 MiB from the medians of p2p_sizes.csv's `default`
                     send_recv passes (8 MiB - 64 MiB sessions of 2026-11-30), 128 MiB - 4 GiB
                     from p2p.csv's one-way rows (the link calibration's own rows), same 30% rule.
Usage: python3 tests/validation/h200x2/calibrate_channels.py   (stdlib only; prints JSON)
"""
import collections
import csv
import json
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
PROFILE = os.path.join(HERE, "..", "..", "..", "hw_profiles", "h200x2.json")
RANKS = 2
NCCL_NAME = {"AllGather": "all_gather", "ReduceScatter": "reduce_scatter", "AllReduce": "all_reduce"}


def link_bytes(coll, size):
    return size * (2.0 * (RANKS - 1) / RANKS if coll == "all_reduce" else (RANKS - 1) / RANKS)


def log_facts():
    text = open(os.path.join(HERE, "nccl_channels_log.txt")).read()
    ring, p2p = map(int, re.search(r"(\d+) coll channels.*?(\d+) p2p channels", text).groups())
    thr = re.search(r"threadThresholds [\d/]+ \| (\d+)/(\d+)/(\d+)", text).groups()
    nthreads = re.search(r"Max NThreads \|" + r"\s*(\d+) \|" * 6, text).groups()[3:6]
    per = {p: int(t) * int(n) for p, t, n in zip(("LL", "LL128", "Simple"), thr, nthreads)}
    calls = []
    mark = None
    for line in text.splitlines():
        m = re.match(r"# MARK tuning (\w+) (\d+)", line)
        if m:
            mark = (m.group(1), int(m.group(2)))
            continue
        m = re.search(r"(\w+): \d+ Bytes -> Algo \w+ proto (\w+) channel\{Lo\.\.Hi\}=\{0\.\.(\d+)\}", line)
        if m and mark:
            calls.append((mark[0], mark[1], m.group(2).replace("SIMPLE", "Simple"), int(m.group(3)) + 1))
            mark = None
    return ring, p2p, per, calls


def by_bytes(launch, p2p_launch, alpha, send):
    times = collections.defaultdict(list)
    for name in ("channel_sizes.csv", "channels.csv"):
        for r in csv.DictReader(open(os.path.join(HERE, name))):
            if r["proto"] in ("default", "Simple") and int(r["channels"]) >= 4:
                times[(r["collective"], int(r["bytes"]), int(r["channels"]))].append(float(r["time_us"]))
    out = collections.defaultdict(dict)
    for coll in sorted({c for c, _, _ in times}):
        steps = 2 * (RANKS - 1) if coll == "all_reduce" else RANKS - 1
        fixed = launch["Simple"] + steps * 2 * alpha["Simple"]  # a ring step crosses two hops
        if coll == "all_to_all":  # one p2p step, started by NCCL's p2p kernel
            fixed = p2p_launch["Simple"] + 2 * alpha["Simple"]
        sizes = []
        for size in sorted({s for c, s, _ in times if c == coll}):
            pts, keep = [send[coll]["Simple"][0]], True
            for k in sorted(k for c, s, k in times if c == coll and s == size):
                t = sum(times[(coll, size, k)]) / len(times[(coll, size, k)])
                keep = keep and t - fixed >= 0.3 * t
                pts.append([k, round(link_bytes(coll, size) / (t - fixed) / 1e3, 2)])
            if keep:
                sizes.append({"bytes": size, "gbps": pts})
        out[coll]["Simple"] = sizes
    out["send_recv"]["Simple"] = send_recv_by_bytes(p2p_launch, alpha)
    return out


def send_recv_by_bytes(p2p_launch, alpha):
    fixed = p2p_launch["Simple"] + 2 * alpha["Simple"]
    passes = collections.defaultdict(list)
    for r in csv.DictReader(open(os.path.join(HERE, "p2p_sizes.csv"))):
        if r["variant"] == "default" and r["op"] == "send_recv":
            passes[int(r["bytes"])].append(float(r["time_us"]))
    times = {s: sorted(t)[len(t) // 2] for s, t in passes.items()}
    top = max(times)
    for r in csv.DictReader(open(os.path.join(HERE, "p2p.csv"))):
        if r["direction"] == "uni" and int(r["bytes"]) > top:
            times[int(r["bytes"])] = float(r["time_us"])
    return [{"bytes": s, "gbps": [[32, round(s / (t - fixed) / 1e3, 2)]]}
            for s, t in sorted(times.items()) if t - fixed >= 0.3 * t]


def main():
    ring, p2p, per, calls = log_facts()
    off = [(c, s, p, k) for c, s, p, k in calls if k != max(1, min(ring, s // per[p]))]
    print(f"# channel rule S // bytes_per_channel, 1..{ring}: {len(calls) - len(off)} of {len(calls)} "
          f"logged calls match; off: {off}")
    prof = json.load(open(PROFILE))
    launch = prof["launch_us"]
    alpha = prof["link_types"]["nvlink4"]["alpha_us"]
    pts = collections.defaultdict(dict)
    for r in csv.DictReader(open(os.path.join(HERE, "channels.csv"))):
        pts[(r["collective"], r["proto"], int(r["channels"]))][int(r["bytes"])] = float(r["time_us"])
    send = collections.defaultdict(dict)
    for (coll, proto, k), by_size in sorted(pts.items(), key=lambda x: (x[0][0], x[0][1], x[0][2])):
        proto = "Simple" if proto == "default" else proto
        if len(by_size) >= 2:
            (s1, t1), (s2, t2) = sorted(by_size.items())[:2]
            gbps = (link_bytes(coll, s2) - link_bytes(coll, s1)) / (t2 - t1) / 1e3
        else:
            (s1, t1), = by_size.items()
            steps = 2 * (RANKS - 1) if coll == "all_reduce" else RANKS - 1
            fixed = launch[proto] + steps * 2 * alpha[proto]  # a ring step crosses two hops
            gbps = link_bytes(coll, s1) / (t1 - fixed) / 1e3
        send[coll].setdefault(proto, []).append([k, round(gbps, 2)])
    block = {"ring": ring, "p2p": p2p, "bytes_per_channel": per, "send_gbps": send,
             "send_gbps_by_bytes": by_bytes(launch, prof["p2p_launch_us"], alpha, send)}
    # one collective's [channels, GB/s] pairs per line
    text = json.dumps(block, indent=2)
    pair = r"\[\s*(\d+),\s*([\d.]+)\s*\]"
    text = re.sub(pair, r"[\1, \2]", text)
    text = re.sub(r"\[\s*\n\s*(\[[^\]]*\](?:,\s*\n\s*\[[^\]]*\])*)\s*\n\s*\]",
                  lambda m: "[" + re.sub(r",\s*\n\s*", ", ", m.group(1)) + "]", text)
    print(text)


if __name__ == "__main__":
    main()
