// How much longer a collective runs beside a kernel that keeps the GPU's memory busy (stream
// overlap, §3.6): NCCL's CTAs and the compute share DRAM and L2 even when they share no SM.
//
// Measured on two H200s (tests/validation/h200x2/rs_contention.py, rs_contention.csv): a
// reduce-scatter's graph of calls beside a memory-streaming Triton kernel whose CTAs leave
// NCCL's 24 SMs free, at four DRAM read rates (8 … 108 CTAs over a 2 GiB buffer) and two L2
// read rates (27, 108 CTAs over 16 MiB). The slowdown stays small until the other kernel
// nears the resource's bandwidth (64 MiB: 1.03x at 31% of DRAM, 1.08x at 58%, 2.36x at 92%),
// so it is read off those points — the share is the other kernel's alone rate over the
// profile's bandwidth (4.4 TB/s DRAM, 8.7 TB/s L2) — linearly between them and in
// log(bytes) between the two message sizes measured (8 and 64 MiB), clamped at the ends.
// DRAM reads cross L2 too, so the two effects are not added: the larger one applies.
#pragma once

namespace tilesight::model {

// A collective of `bytes` (nccl-tests size) beside a kernel that keeps `dram_share` of DRAM's
// and `l2_share` of L2's bandwidth busy: its time over its time alone (>= 1).
double comm_memory_slowdown(double bytes, double dram_share, double l2_share);

}  // namespace tilesight::model
