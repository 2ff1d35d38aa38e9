// File > Open validation corpus: a measured corpus (tests/validation/<gpu>/*.csv) predicted
// row by row off the UI thread, through the engine's own corpus report (the figures
// `tilesight-cli validate` prints). One run at a time; a newer request cancels the running one
// and a result that is not the latest request's is dropped.
#pragma once

#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <QThreadPool>
#include <atomic>
#include <memory>
#include <string>

#include "tilesight/validate/corpus.h"
#include "tilesight/validate/corpus_report.h"

namespace tilesight::ui {

// How to read and predict a corpus: the CLI's validate options.
struct ValidationSetup {
  QString path;
  std::string hardware = "h200";  // the profile it was measured on
  std::string kernel = "gemm";    // template of rows without a kernel column
  double launch_overhead_us = -1; // < 0: the profile's; else the corpus's launch path
  bool recorded_registers = true; // occupancy from the corpus's n_regs where it has them
};

// What a corpus file suggests: the hardware from its folder (tests/validation/h200/ -> h200,
// when such a profile exists, else `fallback`), `attention` rows for attention_*.csv, and
// torch's launch path (4.54 us, hw_profiles/calibrate/h200/launch_overhead.csv) for the corpora
// timed through torch ops (attention_sdpa*, norms*).
ValidationSetup guess_setup(const QString& path, const std::string& fallback_hardware);

struct ValidationResult {
  quint64 generation = 0;
  ValidationSetup setup;
  std::shared_ptr<const validate::Corpus> corpus;  // the rows the report points into
  validate::CorpusReport report;
  QString error;           // why nothing could be predicted ("" on success)
  bool cancelled = false;  // stopped by a newer request (partial report)
};

// Runs it now on the calling thread. `done` and `total` follow the progress; `cancel` stops it.
ValidationResult run_validation(const ValidationSetup& setup, std::atomic<std::size_t>* done = nullptr,
                                std::atomic<std::size_t>* total = nullptr, const std::atomic<bool>* cancel = nullptr);

class ValidationRunner : public QObject {
  Q_OBJECT

 public:
  explicit ValidationRunner(QObject* parent = nullptr);
  ~ValidationRunner() override;

  quint64 request(const ValidationSetup& setup);
  bool busy() const { return running_; }
  // Rows predicted so far of the running request, and its row count (0 while reading).
  std::size_t done() const { return done_.load(); }
  std::size_t total() const { return total_.load(); }

 signals:
  void finished(const tilesight::ui::ValidationResult& result);  // the latest request's only

 private:
  void start(const ValidationSetup& setup, quint64 generation);
  void onFinished();

  QThreadPool pool_;
  QFutureWatcher<ValidationResult> watcher_;
  std::atomic<bool> cancel_{false};
  std::atomic<std::size_t> done_{0}, total_{0};
  std::unique_ptr<ValidationSetup> pending_;
  quint64 latest_ = 0;
  bool running_ = false;
};

}  // namespace tilesight::ui
