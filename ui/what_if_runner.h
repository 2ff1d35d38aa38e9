// The what-if sweeps of the What-if view, off the UI thread: the plan predicted again with
// one link type's bandwidth scaled by each factor, and on each topology variant of its system
// (net::topology_variants: a rail more, a level less, ...), through the engine's own what-if
// support ({"what_if": {"bandwidth_scale": {"nvlink4": 2}}}, {"what_if": {"add_rail":
// {"ib_ndr": 1}}}: model::predict_distributed). One sweep at a time on its own thread; a newer request supersedes a pending one, and a result that is
// not the latest request's is dropped (as PredictionWorker does).
#pragma once

#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <QThreadPool>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tilesight::ui {

struct WhatIfPoint {
  double factor = 1;       // bandwidth × the profile's
  double latency_us = 0;   // the plan's predicted latency
  double comm_us = 0;      // its communication alone (NetworkReport::comm_us)
  double overlap_rate = 0; // share of it hidden under computation (fused kernels)
};

// One topology variant of the plan's system, predicted.
struct VariantPoint {
  std::string label;        // "as specified", "+1 ib_ndr rail", ...
  double latency_us = 0;
  double comm_us = 0;
  QString error;            // why it has no prediction ("" when it has)
};

struct WhatIfSweep {
  quint64 generation = 0;
  std::string link_type;
  std::vector<WhatIfPoint> points;  // factors whose prediction succeeded, ascending
  QString error;                    // the first failure, "" when every factor ran
  std::vector<VariantPoint> variants;  // the plan as specified first, then each variant
};

// `plan` with link type `type`'s bandwidth scaled by `factor` (other what-ifs of the plan kept).
nlohmann::json with_bandwidth_scale(const nlohmann::json& plan, const std::string& type, double factor);

// `plan` with a what_if object merged into its own (the variant's fields win).
nlohmann::json with_what_if(const nlohmann::json& plan, const nlohmann::json& what_if);

// Runs the whole bandwidth sweep now, on the calling thread.
WhatIfSweep sweep_bandwidth(const nlohmann::json& plan, const std::string& type, const std::vector<double>& factors);

// The plan as specified and on each topology variant of its system (none for one GPU).
std::vector<VariantPoint> sweep_variants(const nlohmann::json& plan);

class WhatIfRunner : public QObject {
  Q_OBJECT

 public:
  explicit WhatIfRunner(QObject* parent = nullptr);
  ~WhatIfRunner() override;

  quint64 request(nlohmann::json plan, std::string type, std::vector<double> factors);
  bool busy() const { return running_; }

 signals:
  void swept(const tilesight::ui::WhatIfSweep& sweep);  // the latest request's only

 private:
  struct Request {
    nlohmann::json plan;
    std::string type;
    std::vector<double> factors;
    quint64 generation = 0;
  };
  void start(Request r);
  void onFinished();

  QThreadPool pool_;
  QFutureWatcher<WhatIfSweep> watcher_;
  std::optional<Request> pending_;
  quint64 latest_ = 0;
  bool running_ = false;
};

}  // namespace tilesight::ui
