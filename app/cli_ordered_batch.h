// A batch of independent jobs on several threads, its results handed out in input order: how
// `predict --jsonl` and `bench --threads` use the machine's cores (the engine keeps its memos
// and walkers per thread, so the predictions are the same on any thread).
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>
#include <type_traits>
#include <vector>

namespace tilesight::cli {

// Threads for a batch of `jobs` when asked for `wanted` (0: one per core): never more than the
// jobs, at least one.
inline unsigned batch_threads(unsigned wanted, std::size_t jobs) {
  const unsigned cores = std::max(1U, std::thread::hardware_concurrency());
  const unsigned n = wanted == 0 ? cores : wanted;
  return static_cast<unsigned>(std::max<std::size_t>(1, std::min<std::size_t>(n, jobs)));
}

// Runs work(i, worker) for every i in [0, jobs) on `threads` workers (worker: 0 .. threads - 1,
// for state a worker keeps of its own) and calls emit(i, result) on the calling thread in the
// order of i, each as soon as it and every earlier result are in: a long batch streams its
// output. One thread: a plain loop. An exception in a job is rethrown here, at its turn.
template <class Work, class Emit>
void run_in_order(std::size_t jobs, unsigned threads, Work work, Emit emit) {
  using R = std::invoke_result_t<Work&, std::size_t, unsigned>;
  if (threads <= 1 || jobs <= 1) {
    for (std::size_t i = 0; i < jobs; ++i) emit(i, work(i, 0U));
    return;
  }
  struct Slot {
    std::optional<R> result;
    std::exception_ptr error;
    bool done = false;
  };
  std::vector<Slot> slots(jobs);
  std::atomic<std::size_t> next{0};
  std::mutex mutex;
  std::condition_variable ready;
  const auto worker = [&](unsigned id) {
    for (std::size_t i = next++; i < jobs; i = next++) {
      Slot s;
      try {
        s.result.emplace(work(i, id));
      } catch (...) {
        s.error = std::current_exception();
      }
      s.done = true;
      {
        const std::lock_guard<std::mutex> lock(mutex);
        slots[i] = std::move(s);
      }
      ready.notify_one();
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) pool.emplace_back(worker, t);
  std::exception_ptr failed;
  for (std::size_t i = 0; i < jobs && !failed; ++i) {
    Slot s;
    {
      std::unique_lock<std::mutex> lock(mutex);
      ready.wait(lock, [&] { return slots[i].done; });
      s = std::move(slots[i]);
    }
    try {
      if (s.error) std::rethrow_exception(s.error);
      emit(i, std::move(*s.result));
    } catch (...) {
      failed = std::current_exception();
      next = jobs;  // no new jobs; the running ones finish
    }
  }
  for (auto& t : pool) t.join();
  if (failed) std::rethrow_exception(failed);
}

}  // namespace tilesight::cli
