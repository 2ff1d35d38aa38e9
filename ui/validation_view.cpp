#include "ui/validation_view.h"

#include <qcustomplot.h>

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QTimer>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <limits>

#include "tilesight/hw/profile_loader.h"
#include "ui/plot_style.h"

namespace tilesight::ui {

namespace {

const QColor kPointColor(0x00, 0x72, 0xb2);   // Okabe–Ito blue
const QColor kPickedColor(0xd5, 0x5e, 0x00);  // Okabe–Ito vermillion
constexpr double kPickRadiusPx = 8;

QString percent(double share) { return QStringLiteral("%1%").arg(100 * share, 0, 'f', 1); }

QString row_label(const ValidationResult& r, const validate::ScoredRow& s) {
  return QObject::tr("%1 line %2").arg(QFileInfo(r.setup.path).fileName()).arg(s.row->line);
}

}  // namespace

ValidationView::ValidationView(QWidget* parent)
    : QWidget(parent),
      path_(new QLabel(this)),
      hardware_(new QComboBox(this)),
      kernel_(new QComboBox(this)),
      launch_(new QDoubleSpinBox(this)),
      registers_(new QCheckBox(tr("recorded registers"), this)),
      run_(new QPushButton(tr("Predict"), this)),
      progress_(new QProgressBar(this)),
      poll_(new QTimer(this)),
      summary_(new QLabel(this)),
      plot_(new QCustomPlot(this)),
      problems_(new QTableWidget(this)) {
  setWindowTitle(tr("TileSight: validation corpus"));
  for (const auto& name : hw::list_profiles()) hardware_->addItem(QString::fromStdString(name));
  kernel_->addItems({QStringLiteral("gemm"), QStringLiteral("attention"), QStringLiteral("llm_decode")});
  kernel_->setToolTip(tr("Template of the rows that have no kernel column"));
  launch_->setRange(-1, 100);
  launch_->setDecimals(2);
  launch_->setSingleStep(0.1);
  launch_->setSuffix(tr(" µs"));
  launch_->setSpecialValueText(tr("profile's"));
  launch_->setToolTip(tr("Launch overhead of the corpus's launch path (4.54 µs for torch ops, "
                         "hw_profiles/calibrate/h200/launch_overhead.csv); the lowest value keeps the profile's"));
  registers_->setToolTip(tr("Occupancy from the corpus's recorded registers (n_regs); off: the model's own estimate"));
  registers_->setChecked(true);
  path_->setTextInteractionFlags(Qt::TextSelectableByMouse);

  auto* setup = new QHBoxLayout;
  setup->addWidget(path_, 1);
  setup->addWidget(new QLabel(tr("on"), this));
  setup->addWidget(hardware_);
  setup->addWidget(kernel_);
  setup->addWidget(new QLabel(tr("launch"), this));
  setup->addWidget(launch_);
  setup->addWidget(registers_);
  setup->addWidget(run_);
  progress_->setTextVisible(true);
  progress_->hide();
  summary_->setWordWrap(true);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);

  apply_plot_style(*plot_);
  for (QCPAxis* axis : {plot_->xAxis, plot_->yAxis}) {
    axis->setScaleType(QCPAxis::stLogarithmic);
    axis->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
  }
  plot_->xAxis->setLabel(tr("measured (µs)"));
  plot_->yAxis->setLabel(tr("predicted (µs)"));
  plot_->setMinimumSize(360, 300);
  all_ = plot_->addGraph();
  all_->setName(tr("corpus rows"));
  all_->setLineStyle(QCPGraph::lsNone);
  all_->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, kPointColor, kPointColor, 5));
  picked_ = plot_->addGraph();
  picked_->setName(tr("selected problem"));
  picked_->setLineStyle(QCPGraph::lsNone);
  picked_->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, kPickedColor, kPickedColor, 7));
  plot_->setMouseTracking(true);
  connect(plot_, &QCustomPlot::mouseMove, this, &ValidationView::hover);
  connect(plot_, &QCustomPlot::mousePress, this, [this](QMouseEvent* event) {
    if (const int pick = nearestPoint(event->position()); pick >= 0) activatePoint(pick);
  });

  problems_->setColumnCount(5);
  problems_->setHorizontalHeaderLabels({tr("problem"), tr("rows"), tr("MAPE"), tr("Spearman"), tr("top-5%")});
  problems_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  problems_->setSelectionBehavior(QAbstractItemView::SelectRows);
  problems_->setSelectionMode(QAbstractItemView::SingleSelection);
  problems_->verticalHeader()->hide();
  problems_->verticalHeader()->setDefaultSectionSize(problems_->fontMetrics().height() + 6);
  problems_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
  connect(problems_, &QTableWidget::itemSelectionChanged, this, [this] {
    const auto rows = problems_->selectionModel()->selectedRows();
    highlightProblem(rows.isEmpty() ? -1 : rows.front().row());
  });

  auto* split = new QSplitter(Qt::Horizontal, this);
  split->addWidget(plot_);
  split->addWidget(problems_);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  split->setSizes({640, 440});  // the scatter near square
  auto* hint = new QLabel(tr("Click a point to open that configuration in the editor; pick a problem to "
                             "highlight its rows. Dashed: ±20%."),
                          this);
  hint->setStyleSheet(QStringLiteral("color: %1").arg(muted_text_color().name()));
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(setup);
  layout->addWidget(progress_);
  layout->addWidget(summary_);
  layout->addWidget(split, 1);
  layout->addWidget(hint);
  resize(1100, 640);

  connect(run_, &QPushButton::clicked, this, &ValidationView::run);
  connect(&runner_, &ValidationRunner::finished, this, &ValidationView::showResult);
  poll_->setInterval(100);
  connect(poll_, &QTimer::timeout, this, [this] {
    const auto total = static_cast<int>(runner_.total());
    progress_->setRange(0, std::max(total, 1));
    progress_->setValue(static_cast<int>(runner_.done()));
    progress_->setFormat(total ? tr("predicting %v of %m rows") : tr("reading the corpus"));
  });
}

bool ValidationView::busy() const { return runner_.busy(); }

void ValidationView::open(const ValidationSetup& setup) {
  setup_ = setup;
  path_->setText(setup.path);
  path_->setToolTip(setup.path);
  setWindowTitle(tr("TileSight: %1").arg(QFileInfo(setup.path).fileName()));
  const int hw = hardware_->findText(QString::fromStdString(setup.hardware));
  if (hw >= 0) hardware_->setCurrentIndex(hw);
  const int k = kernel_->findText(QString::fromStdString(setup.kernel));
  if (k >= 0) kernel_->setCurrentIndex(k);
  launch_->setValue(setup.launch_overhead_us < 0 ? launch_->minimum() : setup.launch_overhead_us);
  registers_->setChecked(setup.recorded_registers);
  run();
}

ValidationSetup ValidationView::currentSetup() const {
  ValidationSetup s = setup_;
  s.hardware = hardware_->currentText().toStdString();
  s.kernel = kernel_->currentText().toStdString();
  s.launch_overhead_us = launch_->value() <= launch_->minimum() ? -1 : launch_->value();
  s.recorded_registers = registers_->isChecked();
  return s;
}

void ValidationView::run() {
  if (setup_.path.isEmpty()) return;
  runner_.request(currentSetup());
  progress_->setRange(0, 0);
  progress_->show();
  poll_->start();
}

QString ValidationView::summaryText() const { return summary_->text(); }

void ValidationView::showResult(const ValidationResult& result) {
  poll_->stop();
  progress_->hide();
  result_ = result;
  points_.clear();
  problems_->setRowCount(0);
  all_->data()->clear();
  picked_->data()->clear();
  if (!result.error.isEmpty()) {
    summary_->setText(result.error);
    summary_->setStyleSheet(QStringLiteral("color: #d55e00"));
    plot_->replot();
    emit resultShown(result_);
    return;
  }
  summary_->setStyleSheet({});
  const auto& r = result_.report;  // the copy: points_ keep pointers into it
  for (const auto& s : r.scored) points_.push_back(&s);
  std::sort(points_.begin(), points_.end(), [](const validate::ScoredRow* a, const validate::ScoredRow* b) {
    return a->row->measured_us < b->row->measured_us;
  });
  QVector<double> keys, values;
  double lo = std::numeric_limits<double>::max(), hi = 0;
  for (const auto* p : points_) {
    keys << p->row->measured_us;
    values << p->predicted_us;
    lo = std::min({lo, p->row->measured_us, p->predicted_us});
    hi = std::max({hi, p->row->measured_us, p->predicted_us});
  }
  all_->setData(keys, values, true);
  if (!points_.empty()) drawGuides(lo / 1.5, hi * 1.5);
  QString text = tr("%1 rows: MAPE %2 · wMAPE %3 · median %4 · within 10% %5 · within 20% %6")
                     .arg(r.scored.size())
                     .arg(percent(r.mape), percent(r.wmape), percent(r.median_ape), percent(r.within10),
                          percent(r.within20));
  if (r.ranked_problems)
    text += tr(" · per-problem Spearman %1, top-5% retention %2 (%3 problems)")
                .arg(r.spearman, 0, 'f', 3)
                .arg(r.top5, 0, 'f', 3)
                .arg(r.ranked_problems);
  if (r.rejected) text += tr(" · %1 rows rejected by the model").arg(r.rejected);
  if (result_.corpus && !result_.corpus->skipped.empty())
    text += tr(" · %1 unreadable rows").arg(result_.corpus->skipped.size());
  summary_->setText(text);
  problems_->setRowCount(static_cast<int>(r.problems.size()));
  for (int i = 0; i < static_cast<int>(r.problems.size()); ++i) {
    const auto& p = r.problems[static_cast<std::size_t>(i)];
    const QStringList cells = {QString::fromStdString(p.group), QString::number(p.rows), percent(p.mape),
                               p.ranked ? QString::number(p.spearman, 'f', 3) : QStringLiteral("–"),
                               p.ranked ? QString::number(p.top5, 'f', 3) : QStringLiteral("–")};
    for (int c = 0; c < cells.size(); ++c) {
      auto* item = new QTableWidgetItem(cells[c]);
      if (c > 0) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      if (c == 0) item->setToolTip(cells[0]);
      problems_->setItem(i, c, item);
    }
  }
  problems_->resizeColumnsToContents();
  problems_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
  plot_->replot();
  emit resultShown(result_);
}

// The diagonal and the ±20% lines over [lo, hi] on both axes.
void ValidationView::drawGuides(double lo, double hi) {
  while (plot_->graphCount() > 2) plot_->removeGraph(plot_->graphCount() - 1);
  for (double f : {1.0, 1.2, 1.0 / 1.2}) {
    QCPGraph* g = plot_->addGraph();
    g->setData({lo, hi}, {lo * f, hi * f}, true);
    g->setPen(QPen(muted_text_color(), 1, f == 1.0 ? Qt::SolidLine : Qt::DashLine));
    g->setSelectable(QCP::stNone);
    g->setName(f == 1.0 ? tr("predicted = measured") : tr("±20%"));
  }
  plot_->xAxis->setRange(lo, hi);
  plot_->yAxis->setRange(lo, hi);
}

const validate::ScoredRow* ValidationView::pointRow(int index) const {
  return index >= 0 && index < static_cast<int>(points_.size()) ? points_[static_cast<std::size_t>(index)] : nullptr;
}

void ValidationView::activatePoint(int index) {
  const auto* s = pointRow(index);
  if (!s) return;
  emit configurationRequested(s->row->plan, row_label(result_, *s));
}

void ValidationView::highlightProblem(int row) {
  picked_->data()->clear();
  const auto& problems = result_.report.problems;
  if (row >= 0 && row < static_cast<int>(problems.size())) {
    const std::string& group = problems[static_cast<std::size_t>(row)].group;
    QVector<double> keys, values;
    for (const auto* p : points_)
      if (p->row->group == group) keys << p->row->measured_us, values << p->predicted_us;
    picked_->setData(keys, values, true);
  }
  plot_->replot();
}

// The point within a few pixels of `pos`, the nearest one; -1 if none.
int ValidationView::nearestPoint(const QPointF& pos) const {
  double best = kPickRadiusPx * kPickRadiusPx;
  int pick = -1;
  for (int i = 0; i < static_cast<int>(points_.size()); ++i) {
    const auto* p = points_[static_cast<std::size_t>(i)];
    const double dx = all_->keyAxis()->coordToPixel(p->row->measured_us) - pos.x();
    const double dy = all_->valueAxis()->coordToPixel(p->predicted_us) - pos.y();
    if (dx * dx + dy * dy < best) best = dx * dx + dy * dy, pick = i;
  }
  return pick;
}

void ValidationView::hover(QMouseEvent* event) {
  const auto* near = pointRow(nearestPoint(event->position()));
  if (!near) {
    QToolTip::hideText();
    return;
  }
  const QString config = QString::fromStdString(validate::row_config(*near->row));
  QToolTip::showText(event->globalPosition().toPoint(),
                     tr("%1\n%2%3\nmeasured %4 µs, predicted %5 µs (%6%7%)")
                         .arg(row_label(result_, *near), QString::fromStdString(near->row->group),
                              config.isEmpty() ? QString() : QStringLiteral("\n") + config)
                         .arg(near->row->measured_us, 0, 'g', 4)
                         .arg(near->predicted_us, 0, 'g', 4)
                         .arg(near->predicted_us >= near->row->measured_us ? QStringLiteral("+") : QString())
                         .arg(100 * (near->predicted_us / near->row->measured_us - 1), 0, 'f', 1),
                     plot_);
}

}  // namespace tilesight::ui
