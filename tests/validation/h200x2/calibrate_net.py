#!/usr/bin/env python3
"""Network parameters of hw_profiles/h200x2.json from point-to-point and small-message results
only (issue 8's rule); the larger collectives rows stay a check (tilesight-cli validate).

  efficiency  least-squares slope of p2p.csv `uni` time against bytes for bytes >= 64 MiB
              (NCCL send/recv rank 0 -> 1): achieved bytes/s over the datasheet 450 GB/s.
  alpha_us    per hop and protocol: half the per-ring-step latency, where a ring step is the
              difference of the small-message medians of all_reduce (2 ring steps on two
              ranks) and all_gather (1 step) with that protocol forced (NCCL_PROTO); a step
              through the NVSwitch crosses two hops (gpu -> nvswitch -> gpu).
  launch_us   per protocol: the all_gather small-message median less its one ring step.
  p2p_launch_us  the same for NCCL's p2p kernel (all_to_all, send/recv), from p2p.csv `uni`
              rows: LL from those of at most 16 KiB, Simple from 32-256 KiB (NCCL's p2p path
              runs LL up to 16 KiB a peer, Simple above: engine/include/tilesight/net/
              nccl_tuner.h), each median less its bandwidth term and its two hops' alpha_us.
Small messages: the rows of 8-64 KiB of collectives.csv, where the bandwidth term of the
model is below 0.3 us and is subtracted anyway. Medians, because single rows scatter by
+-5 us (graph replay of back-to-back NCCL kernels).
Usage: python3 tests/validation/h200x2/calibrate_net.py  (stdlib only; prints the values)
"""
import csv
import json
import os
import statistics

HERE = os.path.dirname(os.path.abspath(__file__))
DATASHEET = 450e9      # NVLink 4 per direction per GPU (18 x 25 GB/s)
SMALL_MAX = 64 * 1024  # bytes
# Payload share of the wire per protocol (engine/src/net/protocol.cpp): LL 1/2, LL128 120/128.
WIRE = {"LL": 0.5, "LL128": 120 / 128, "Simple": 1.0}
PROFILE = os.path.join(HERE, "..", "..", "..", "hw_profiles", "h200x2.json")


def share_at(curve, x):
    """A channel's rate as a share of a lone channel's at aggregate rate x, from the Simple
    points (engine/src/net/nccl_channels.cpp, share_at)."""
    lone = curve[0][1] / curve[0][0]
    f = [g / k / lone for k, g in curve]
    if len(curve) == 1 or x <= curve[0][1]:
        return f[0]
    i = 1
    while i + 1 < len(curve) and x > curve[i][1]:
        i += 1
    w = (x - curve[i - 1][1]) / (curve[i][1] - curve[i - 1][1])
    return max(0.01, f[i - 1] + w * (f[i] - f[i - 1]))


def channel_rate(coll, proto, size):
    """Bytes/s a GPU's NCCL channels send, as the engine reads the profile's "nccl_channels":
    channels from the buffer size; X = k * lone * f(X) with f from the Simple points."""
    ch = json.load(open(PROFILE))["nccl_channels"]
    k = max(1, min(ch["ring"], size // ch["bytes_per_channel"][proto]))
    curve = ch["send_gbps"][coll]["Simple"]
    own = ch["send_gbps"][coll].get(proto)
    if own:
        lone = own[0][1] / own[0][0]
    else:  # the Simple rate times NCCL's tuner share, as the engine does
        lone = curve[0][1] / curve[0][0] * {"LL": 0.25 if coll == "all_reduce" else 1 / 3,
                                             "LL128": 0.92}[proto]
    top = k * lone
    lo, hi = 0.0, top * max([1.0] + [share_at(curve, g) for _, g in curve])
    for _ in range(100):
        mid = (lo + hi) / 2
        if mid - top * share_at(curve, mid) < 0:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2 * 1e9


def rows(name):
    with open(os.path.join(HERE, name)) as f:
        return list(csv.DictReader(f))


def p2p_bandwidth():
    pts = [(float(r["bytes"]), float(r["time_us"]) * 1e-6) for r in rows("p2p.csv")
           if r["direction"] == "uni" and int(r["bytes"]) >= 64 << 20]
    n = len(pts)
    mx = sum(x for x, _ in pts) / n
    my = sum(y for _, y in pts) / n
    slope = sum((x - mx) * (y - my) for x, y in pts) / sum((x - mx) ** 2 for x, _ in pts)
    return 1.0 / slope, (my - slope * mx) * 1e6, n


def small_median(coll, proto, bw):
    # two ranks: all_gather sends bytes/2 once, all_reduce bytes/2 twice (ring steps), each
    # as fast as the link's payload share and the GPU's channels allow
    steps = 2 if coll == "all_reduce" else 1

    def rate(size):
        return min(bw * WIRE[proto], channel_rate(coll, proto, size))
    t = [float(r["time_us"]) - steps * int(r["bytes"]) / 2 / rate(int(r["bytes"])) * 1e6
         for r in rows("collectives.csv")
         if r["collective"] == coll and r["proto"] == proto and int(r["bytes"]) <= SMALL_MAX]
    return statistics.median(t), len(t)


def main():
    bw, intercept, n = p2p_bandwidth()
    print(f"p2p uni >= 64 MiB ({n} rows): {bw / 1e9:.1f} GB/s (intercept {intercept:.1f} us)"
          f" -> efficiency {bw / DATASHEET:.4f}")
    for proto in ("LL", "LL128", "Simple"):
        ar, na = small_median("all_reduce", proto, bw)
        ag, ng = small_median("all_gather", proto, bw)
        step = ar - ag
        print(f"{proto:6s} all_reduce {ar:6.2f} us ({na} rows), all_gather {ag:6.2f} us ({ng} rows):"
              f" step {step:5.2f} us -> alpha {step / 2:5.2f} us per hop, launch {ag - step:6.2f} us")
    alpha = json.load(open(PROFILE))["link_types"]["nvlink4"]["alpha_us"]
    for proto, lo, hi in (("LL", 0, 16 << 10), ("Simple", 32 << 10, 256 << 10)):
        t = [float(r["time_us"]) - int(r["bytes"]) / (bw * WIRE[proto]) * 1e6 for r in rows("p2p.csv")
             if r["direction"] == "uni" and lo <= int(r["bytes"]) <= hi]
        med = statistics.median(t)
        print(f"p2p {proto:6s} uni {lo >> 10}-{hi >> 10} KiB median {med:.2f} us ({len(t)} rows)"
              f" -> p2p_launch {med - 2 * alpha[proto]:.2f} us")


if __name__ == "__main__":
    main()
