// How a program that predicts again and again (the CLI's batches, the GUI's live edits, the
// benchmarks) should have the C allocator treat the memory a prediction frees.
#pragma once

namespace tilesight {

// Keeps freed heap memory for the next prediction rather than handing it back to the system
// after each one. With glibc's defaults a cache analysis with its tile maps (an 8192^3 GEMM,
// 128 x 128 tiles: 4096 tiles, eight 32 KB maps) frees more than the 128 KB trim threshold, the
// heap shrinks, and the next analysis faults its pages in again: about 30 page faults and a
// heap shrink an analysis, 600-750 us a call on the 2-core development VM against 104 us with
// the memory kept (bench/engine_bench.cpp; `perf stat -e page-faults`: 34758 faults in 1120
// analyses, 320 kept). Call once at the start of main; a no-op outside glibc. The process
// keeps up to 64 MB of free heap.
void keep_freed_memory();

}  // namespace tilesight
