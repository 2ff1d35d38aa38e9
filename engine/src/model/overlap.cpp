#include "tilesight/model/overlap.h"

#include <algorithm>
#include <numeric>

namespace tilesight::model {

double OverlapSchedule::overlap_rate() const {
  if (comm_alone <= 0) return 0;
  return std::clamp((comm_alone + compute_alone - total) / comm_alone, 0.0, 1.0);
}

double finish_time(double start, double work, const std::vector<Span>& busy, double slowdown) {
  double t = start, left = work;
  for (const Span& s : busy) {
    if (left <= 0) break;
    if (s.end <= t) continue;
    if (s.start > t) {  // full rate until the span starts
      const double free = s.start - t;
      if (left <= free) return t + left;
      left -= free;
      t = s.start;
    }
    const double slow = (s.end - t) / slowdown;  // work done inside the span
    if (left <= slow) return t + left * slowdown;
    left -= slow;
    t = s.end;
  }
  return t + left;
}

namespace {

// Tail admission (OverlapInput::tail): step k's start once the pieces it waits behind are placed.
double admitted(const OverlapInput& in, const std::vector<Span>& pieces, std::size_t piece, double ready) {
  if (piece >= pieces.size()) return ready;
  return std::max(ready, pieces[piece].end - in.tail[piece]);
}

}  // namespace

OverlapSchedule schedule_overlap(const OverlapInput& in) {
  OverlapSchedule out;
  out.comm_alone = std::accumulate(in.comm.begin(), in.comm.end(), 0.0);
  out.compute_alone = std::accumulate(in.compute.begin(), in.compute.end(), 0.0);
  const bool tail = !in.tail.empty();
  double net_free = 0, sm_free = 0;
  // A step runs beside the pieces placed so far and, compute first, those still to come (they
  // wait for no step: back to back from sm_free); comm first, the later pieces wait for it.
  auto post = [&](double start, double c) {
    double end = start + c;
    if (in.comm_slowdown > 1) {
      std::vector<Span> busy = out.compute;
      const double rest = in.comm_first ? 0.0
                                        : std::accumulate(in.compute.begin() + static_cast<std::ptrdiff_t>(out.compute.size()),
                                                          in.compute.end(), 0.0);
      if (rest > 0) busy.push_back({sm_free, sm_free + rest});
      end = finish_time(start, c, busy, in.comm_slowdown);
    }
    out.comm.push_back({start, end});
    net_free = end;
  };
  if (in.comm_first) {
    // The steps depend on nothing but each other; piece 0 is the local shard.
    if (!tail)
      for (double c : in.comm) post(net_free, c);
    for (std::size_t k = 0; k < in.compute.size(); ++k) {
      const double ready = k == 0 ? 0.0 : (k - 1 < out.comm.size() ? out.comm[k - 1].end : net_free);
      const double start = std::max(sm_free, ready);
      sm_free = finish_time(start, in.compute[k], out.comm, in.compute_slowdown);
      out.compute.push_back({start, sm_free});
      // Tail: step k, ready when piece k starts, gets SMs in piece k's last round.
      if (tail && k < in.comm.size()) post(admitted(in, out.compute, k, net_free), in.comm[k]);
    }
  } else {
    // Piece k runs beside the steps already posted; step k waits for piece k (tail: and for
    // piece k + 1, launched behind piece k on its stream, to start retiring its CTAs).
    for (std::size_t k = 0; k < in.compute.size(); ++k) {
      const double start = sm_free;
      sm_free = finish_time(start, in.compute[k], out.comm, in.compute_slowdown);
      out.compute.push_back({start, sm_free});
      if (tail) {
        if (k >= 1 && k - 1 < in.comm.size())
          post(admitted(in, out.compute, k, std::max(net_free, out.compute[k - 1].end)), in.comm[k - 1]);
      } else if (k < in.comm.size()) {
        post(std::max(net_free, sm_free), in.comm[k]);
      }
    }
    const std::size_t last = in.compute.size() - 1;
    if (tail && !in.compute.empty() && last < in.comm.size()) post(std::max(net_free, sm_free), in.comm[last]);
  }
  out.total = std::max(net_free, sm_free);
  return out;
}

std::vector<report::OverlapSpan> report_spans(const OverlapSchedule& schedule, double offset) {
  std::vector<report::OverlapSpan> out;
  for (bool compute : {false, true}) {
    const auto& spans = compute ? schedule.compute : schedule.comm;
    for (std::size_t i = 0; i < spans.size(); ++i)
      out.push_back({compute, static_cast<std::int64_t>(i), (offset + spans[i].start) * 1e6,
                     (offset + spans[i].end) * 1e6});
  }
  return out;
}

OverlapSchedule schedule_around(const AroundInput& in) {
  OverlapSchedule out;
  out.comm_alone = std::accumulate(in.comm_in.begin(), in.comm_in.end(), 0.0) +
                   std::accumulate(in.comm_out.begin(), in.comm_out.end(), 0.0);
  out.compute_alone = std::accumulate(in.compute.begin(), in.compute.end(), 0.0);
  double net_free = 0, sm_free = 0;
  for (double c : in.comm_in) {
    out.comm.push_back({net_free, net_free + c});
    net_free += c;
  }
  const std::vector<Span> in_spans = out.comm;
  for (std::size_t k = 0; k < in.compute.size(); ++k) {
    const double start = std::max(sm_free, k < in_spans.size() ? in_spans[k].end : 0.0);
    sm_free = finish_time(start, in.compute[k], in_spans, in.compute_slowdown);
    out.compute.push_back({start, sm_free});
    if (k < in.comm_out.size()) {
      const double s = std::max(net_free, sm_free);
      out.comm.push_back({s, s + in.comm_out[k]});
      net_free = s + in.comm_out[k];
    }
  }
  out.total = std::max(net_free, sm_free);
  return out;
}

}  // namespace tilesight::model
