#include "ui/report_view.h"

#include <QEvent>
#include <QHeaderView>
#include <QLabel>
#include <QScrollArea>
#include <QStyle>
#include <QTableView>
#include <QTextDocument>
#include <QVBoxLayout>
#include <algorithm>

#include "ui/format.h"
#include "ui/rich_text_block.h"
#include "ui/utilization_delegate.h"
#include "ui/utilization_model.h"

namespace tilesight::ui {

namespace {

// Figures in the report's wrapping text: number and unit on one line.
QString time_text(double us) {
  return unbroken(format_time_us(us));
}
QString bytes_text(double bytes) {
  return unbroken(format_bytes(bytes));
}

QString html(const std::string& s) {
  return QString::fromStdString(s).toHtmlEscaped();
}

QString row(const QString& key, const QString& value) {
  return QStringLiteral("<tr><td style='color:#666; padding-right:12px'>%1</td><td>%2</td></tr>")
      .arg(key, value);
}

QString waves_text(const report::Prediction& p) {
  QString kinds;
  for (const auto& w : p.wave_reports)
    kinds += (kinds.isEmpty() ? QString() : QStringLiteral(" + ")) +
             QStringLiteral("%1 %2").arg(w.count).arg(QString::fromStdString(w.kind));
  // A composed step (llm_decode) launches many kernels: no one grid to count.
  if (p.blocks == 0)
    return p.occupancy_limiter.empty() ? QObject::tr("many kernels") : html(p.occupancy_limiter);
  return QObject::tr("%1 blocks in %2 %3%4, %5 resident per SM%6")
      .arg(format_count(static_cast<double>(p.blocks)))
      .arg(p.waves)
      .arg(p.waves == 1 ? QObject::tr("wave") : QObject::tr("waves"))
      .arg(kinds.isEmpty() ? QString() : QStringLiteral(" (") + kinds + QStringLiteral(")"))
      .arg(p.resident_blocks_per_sm)
      .arg(p.occupancy_limiter.empty()
               ? QString()
               : QObject::tr(" (limited by %1)").arg(html(p.occupancy_limiter)));
}

// A decode step (llm_decode): its time and rate, then each operation of a layer (or of the
// step, for the ones that run once) as the CLI lists them, the times right-aligned.
QString serve_rows(const report::ServeReport& serve) {
  QString ops = QStringLiteral("<table cellspacing='0'>");
  for (const auto& [op, us] : serve.per_layer_us)
    ops += QStringLiteral("<tr><td style='padding-right:10px'>%1</td><td align='right'>%2</td></tr>")
               .arg(html(op), time_text(us));
  ops += QStringLiteral("</table>");
  return row(QObject::tr("Decode step"), QObject::tr("%1, %2 tokens/s")
                                             .arg(time_text(serve.step_us),
                                                  format_count(serve.tokens_per_s))) +
         row(QObject::tr("Per layer"), ops);
}

bool has_cache_figures(const report::Prediction& p) {
  return p.dram_bytes > 0 || p.l2_hit_rate > 0 || !p.tensors.empty();
}

QString summary_html(const report::Prediction& p) {
  const auto b = index(p.bottleneck);
  QString s = QStringLiteral("<table cellspacing='2'>");
  // A decode step is many kernels, not one loop: its envelope would read "prologue 0 µs".
  if (p.serve.step_us <= 0)
    s += row(QObject::tr("Envelope"),
           QObject::tr("prologue %1 · steady %2 · epilogue %3")
               .arg(time_text(p.prologue_us), time_text(p.steady_us),
                    time_text(p.epilogue_us)));
  s += row(QObject::tr("Blocks"), waves_text(p));
  // A collective does no arithmetic and a composed step (llm_decode) has no one cache
  // figure: rows of zeros would read as predictions, so they are left out (as the CLI
  // leaves them out for a collective).
  if (p.flops > 0)
    s += row(QObject::tr("Throughput"),
             QObject::tr("%1 TFLOP/s").arg(p.achieved_flops_per_s / 1e12, 0, 'f', 1));
  // A decode step sums its kernels' DRAM traffic but has no one L2 hit rate.
  if (p.serve.step_us > 0 && p.dram_bytes > 0)
    s += row(QObject::tr("DRAM"), QObject::tr("%1 (the step's kernels)").arg(bytes_text(p.dram_bytes)));
  else if (has_cache_figures(p))
    s += row(QObject::tr("Cache"), QObject::tr("L2 hit rate %1 (%2), DRAM %3")
                                       .arg(format_percent(p.l2_hit_rate), html(p.cache_model),
                                            bytes_text(p.dram_bytes)));
  if (p.serve.step_us > 0) s += serve_rows(p.serve);
  s += row(QObject::tr("Bottleneck"),
           QObject::tr("<b>%1</b>, %2 busy")
               .arg(to_qstring(resource_label(p.bottleneck)), format_percent(p.utilization[b])));
  return s + QStringLiteral("</table>");
}

QString list_html(const std::vector<std::string>& items, const QString& color = {}) {
  QString s = QStringLiteral("<ul style='margin-left:-20px'>");
  for (const auto& item : items)
    s += color.isEmpty() ? QStringLiteral("<li>%1</li>").arg(html(item))
                         : QStringLiteral("<li style='color:%1'>%2</li>").arg(color, html(item));
  return s + QStringLiteral("</ul>");
}

QLabel* rich_label(QWidget* parent) {
  auto* label = new QLabel(parent);
  label->setTextFormat(Qt::RichText);
  label->setWordWrap(true);
  label->setTextInteractionFlags(Qt::TextSelectableByMouse);
  return label;
}

}  // namespace

ReportView::ReportView(QWidget* parent) : QWidget(parent), model_(new UtilizationModel(this)) {
  auto* content = new QWidget;
  auto* layout = new QVBoxLayout(content);
  layout->setContentsMargins(6, 6, 6, 6);  // the table's three columns fit a 250 px report
  error_ = rich_label(content);
  error_->setStyleSheet(
      QStringLiteral("QLabel { color: #b00020; background: #fdecee; border: 1px solid "
                     "#f3b5bd; border-radius: 3px; padding: 6px; }"));
  error_->hide();
  title_ = new RichTextBlock(content);
  latency_ = new RichTextBlock(content);
  summary_ = new RichTextBlock(content);
  diagnosis_ = new RichTextBlock(content);
  table_ = new QTableView(content);
  table_->setModel(model_);
  table_->setItemDelegateForColumn(UtilizationModel::kUtilization, new UtilizationDelegate(table_));
  table_->verticalHeader()->hide();
  measureColumns();
  table_->viewport()->installEventFilter(this);
  table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 8);
  table_->setSelectionMode(QAbstractItemView::NoSelection);
  table_->setFocusPolicy(Qt::NoFocus);
  table_->setShowGrid(false);
  table_->setAlternatingRowColors(true);
  table_->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  fitTableHeight(static_cast<int>(kResourceCount));
  for (QWidget* w : {static_cast<QWidget*>(error_), static_cast<QWidget*>(title_),
                     static_cast<QWidget*>(latency_), static_cast<QWidget*>(summary_),
                     static_cast<QWidget*>(table_), static_cast<QWidget*>(diagnosis_)})
    layout->addWidget(w);
  layout->addStretch(1);
  title_->setHtml(tr("<i>no prediction yet</i>"));

  auto* scroll = new QScrollArea(this);
  scroll->setWidget(content);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  auto* outer = new QVBoxLayout(this);
  outer->setContentsMargins(0, 0, 0, 0);
  outer->addWidget(scroll);
}

// Column widths measured once for the widest text each can hold (every pipeline's name, in
// full and as a lane name, a time of three digits, bold as the bottleneck's row is), not for
// the figures of the moment: a new prediction while the user edits never moves the columns.
void ReportView::measureColumns() {
  QFont bold = table_->font();
  bold.setBold(true);
  const QFontMetrics fm(bold), header_fm(table_->horizontalHeader()->font());
  // The style's margins around a cell's text and a section's title, and a few pixels between
  // a column's text and the next one's.
  const int cell =
      2 * (table_->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, table_) + 1) + 4;
  const int header = 2 * table_->style()->pixelMetric(QStyle::PM_HeaderMargin, nullptr, table_) + 4;
  const auto title = [&](int column) {
    return header_fm.horizontalAdvance(model_->headerData(column, Qt::Horizontal).toString()) +
           header;
  };
  columns_ = {.full_name = title(UtilizationModel::kResource),
              .short_name = title(UtilizationModel::kResource),
              .busy = title(UtilizationModel::kBusy),
              .min_bars = title(UtilizationModel::kUtilization)};
  for (Resource r : kAllResources) {
    columns_.full_name =
        std::max(columns_.full_name, fm.horizontalAdvance(to_qstring(resource_label(r))) + cell);
    columns_.short_name =
        std::max(columns_.short_name, fm.horizontalAdvance(to_qstring(resource_lane(r))) + cell);
  }
  for (const char* widest : {"0.999 µs", "99.9 µs", "99.9 ms", "99.9 ns", "999 µs", "999 ms", "999 s"})
    columns_.busy = std::max(columns_.busy, fm.horizontalAdvance(QString::fromUtf8(widest)) + cell);
  columns_.min_bars = std::max(columns_.min_bars, UtilizationDelegate::minimumWidth(fm));
  QHeaderView* h = table_->horizontalHeader();
  h->setMinimumSectionSize(std::min(columns_.short_name, columns_.busy));
  h->setSectionResizeMode(UtilizationModel::kResource, QHeaderView::Fixed);
  h->setSectionResizeMode(UtilizationModel::kBusy, QHeaderView::Fixed);
  h->setSectionResizeMode(UtilizationModel::kUtilization, QHeaderView::Stretch);
  h->resizeSection(UtilizationModel::kBusy, columns_.busy);
}

// The three columns fit the table: the names in full where the bars keep their minimum width,
// else the lane names (a 1280x800 window: the report is 250 px wide and the utilisation
// column was cut off); the bars take what is left.
void ReportView::fitColumns() {
  const int room = table_->viewport()->width() - columns_.busy - columns_.min_bars;
  const bool full = room >= columns_.full_name;
  model_->setShortNames(!full);
  table_->horizontalHeader()->resizeSection(UtilizationModel::kResource,
                                            full ? columns_.full_name : columns_.short_name);
}

bool ReportView::eventFilter(QObject* watched, QEvent* event) {
  if (watched == table_->viewport() && event->type() == QEvent::Resize) fitColumns();
  return QWidget::eventFilter(watched, event);
}

// Every row shown, no scroll bar: the pipelines of this hardware (set again only when
// their number changes).
void ReportView::fitTableHeight(int rows) {
  if (rows == fitted_rows_) return;
  fitted_rows_ = rows;
  table_->setFixedHeight(table_->verticalHeader()->defaultSectionSize() * rows +
                         table_->horizontalHeader()->sizeHint().height() + 4);
}

void ReportView::setPrediction(const report::Prediction& p) {
  has_prediction_ = true;
  latency_text_ = format_time_us(p.latency_us);
  clearErrors();
  title_->setHtml(QStringLiteral("<b>%1</b><br><span style='color:#666'>on %2 (%3 profile)</span>")
                      .arg(html(p.name), html(p.hardware),
                           QString::fromUtf8(hw::profile_source_name(p.profile_source))));
  latency_->setHtml(tr("<span style='font-size:20pt; font-weight:600'>%1</span>"
                       "<span style='color:#666'>&nbsp;&nbsp;predicted latency, launch overhead %2 "
                       "included</span>")
                        .arg(unbroken(latency_text_), time_text(p.launch_overhead_us)));
  summary_->setHtml(summary_html(p));
  model_->setPrediction(p);
  fitTableHeight(model_->rowCount());
  QString diagnosis = tr("<b>Diagnosis</b>") + list_html(p.diagnosis);
  if (!p.warnings.empty())
    diagnosis += tr("<b>Warnings</b>") + list_html(p.warnings, QStringLiteral("#a05a00"));
  diagnosis_->setHtml(diagnosis);
}

void ReportView::showErrors(const Errors& errors) {
  QString s =
      has_prediction_
          ? tr("<b>This edit cannot run</b> (the report below is the last plan that could):")
          : tr("<b>This plan cannot run:</b>");
  s += QStringLiteral("<ul style='margin-left:-20px'>");
  for (const auto& e : errors) {
    QString where = e.path.empty() ? QString() : QStringLiteral("<b>%1</b>: ").arg(html(e.path));
    if (e.line > 0) where = tr("line %1: ").arg(e.line) + where;
    s += QStringLiteral("<li>%1%2</li>").arg(where, html(e.message));
  }
  error_->setText(s + QStringLiteral("</ul>"));
  error_->show();
}

void ReportView::clearErrors() {
  error_->clear();
  error_->hide();
}

namespace {
QString plain(const QLabel* label) {
  QTextDocument doc;
  doc.setHtml(label->text());
  return doc.toPlainText().trimmed();
}
}  // namespace

QString ReportView::errorText() const {
  return error_->isHidden() ? QString() : plain(error_);
}
QString ReportView::latencyText() const {
  return latency_text_;
}
QString ReportView::diagnosisText() const {
  return diagnosis_->plainText().trimmed();
}
QString ReportView::summaryText() const {
  return summary_->plainText().trimmed();
}

}  // namespace tilesight::ui
