#include "tilesight/util/allocator.h"

#include <cstdlib>  // defines __GLIBC__ where glibc is the C library

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace tilesight {

void keep_freed_memory() {
#if defined(__GLIBC__)
  // Setting either threshold turns off glibc's own adjustment of both, so both are set: free
  // memory at the top of a heap is kept up to 64 MB, and blocks up to 32 MB (glibc's largest
  // mmap threshold) come from the heap rather than a mapping of their own, unmapped on free.
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
#endif
}

}  // namespace tilesight
