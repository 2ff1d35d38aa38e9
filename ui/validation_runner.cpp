#include "ui/validation_runner.h"

#include <QDir>
#include <QFileInfo>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>

#include "tilesight/hw/profile_loader.h"
#include "tilesight/net/system_profile.h"
#include "tilesight/validate/network_corpus.h"

namespace tilesight::ui {

namespace {
// torch's launch path under do_bench (hw_profiles/calibrate/h200/launch_overhead.csv,
// torch_add_1elem), as the CTest guards of the torch-timed corpora pass it.
constexpr double kTorchLaunchUs = 4.54;
}  // namespace

ValidationSetup guess_setup(const QString& path, const std::string& fallback_hardware) {
  ValidationSetup s;
  s.path = path;
  const QFileInfo info(path);
  const std::string folder = info.dir().dirName().toStdString();
  const auto profiles = hw::list_profiles();
  s.hardware = std::find(profiles.begin(), profiles.end(), folder) != profiles.end() ? folder : fallback_hardware;
  const QString name = info.fileName();
  if (name.startsWith(QStringLiteral("attention"))) s.kernel = "attention";
  if (name.startsWith(QStringLiteral("llm_decode"))) s.kernel = "llm_decode";
  if (name.startsWith(QStringLiteral("attention_sdpa")) || name.startsWith(QStringLiteral("norms")))
    s.launch_overhead_us = kTorchLaunchUs;
  return s;
}

ValidationResult run_validation(const ValidationSetup& setup, std::atomic<std::size_t>* done,
                                std::atomic<std::size_t>* total, const std::atomic<bool>* cancel) {
  ValidationResult r;
  r.setup = setup;
  const std::string path = setup.path.toStdString();
  if (validate::network_corpus_kind(path)) {
    r.error = QObject::tr("%1 is a multi-GPU corpus: `tilesight-cli validate %1 --hw SYSTEM` reports it.")
                  .arg(setup.path);
    return r;
  }
  auto hw = hw::load_profile(setup.hardware);
  // Decode steps may span a system's GPUs (llm_decode_tp2.csv on h200x2): its GPU's profile.
  if (!hw && setup.kernel == "llm_decode")
    if (auto system = net::load_system(setup.hardware)) hw = system->device;
  if (!hw) {
    r.error = QObject::tr("Hardware %1: %2")
                  .arg(QString::fromStdString(setup.hardware), QString::fromStdString(hw.error_text("; ")));
    return r;
  }
  if (setup.launch_overhead_us >= 0) hw.value().launch_overhead_us = setup.launch_overhead_us;
  auto corpus = validate::read_corpus(path, setup.hardware, setup.kernel, setup.recorded_registers);
  if (!corpus) {
    r.error = QString::fromStdString(corpus.error_text("\n"));
    return r;
  }
  auto shared = std::make_shared<const validate::Corpus>(std::move(corpus.value()));
  r.corpus = shared;
  if (total) *total = shared->rows.size();
  r.report = validate::predict_corpus(*shared, *hw, [&](std::size_t n, std::size_t) {
    if (done) *done = n;
    const bool stop = cancel && cancel->load();
    r.cancelled = r.cancelled || stop;
    return !stop;
  });
  if (r.report.scored.empty() && !r.cancelled) {
    r.error = shared->rows.empty() ? QObject::tr("%1: no measured rows.").arg(setup.path)
                                   : QObject::tr("No row of %1 could be predicted: %2")
                                         .arg(setup.path, r.report.rejections.empty()
                                                              ? QString()
                                                              : QString::fromStdString(r.report.rejections.front()));
  }
  return r;
}

ValidationRunner::ValidationRunner(QObject* parent) : QObject(parent) {
  pool_.setMaxThreadCount(1);
  connect(&watcher_, &QFutureWatcher<ValidationResult>::finished, this, &ValidationRunner::onFinished);
}

ValidationRunner::~ValidationRunner() {
  watcher_.disconnect(this);
  cancel_ = true;
  watcher_.waitForFinished();
}

quint64 ValidationRunner::request(const ValidationSetup& setup) {
  ++latest_;
  if (running_) {
    cancel_ = true;  // the running one stops at its next progress step
    pending_ = std::make_unique<ValidationSetup>(setup);
  } else {
    start(setup, latest_);
  }
  return latest_;
}

void ValidationRunner::start(const ValidationSetup& setup, quint64 generation) {
  running_ = true;
  cancel_ = false;
  done_ = 0;
  total_ = 0;
  watcher_.setFuture(QtConcurrent::run(&pool_, [this, setup, generation] {
    ValidationResult r = run_validation(setup, &done_, &total_, &cancel_);
    r.generation = generation;
    return r;
  }));
}

void ValidationRunner::onFinished() {
  ValidationResult result = watcher_.result();
  if (pending_) {
    const ValidationSetup next = *pending_;
    pending_.reset();
    start(next, latest_);
  } else {
    running_ = false;
  }
  if (result.generation == latest_ && !result.cancelled) emit finished(result);
}

}  // namespace tilesight::ui
