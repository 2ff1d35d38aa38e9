// The config panel's forms for llm_decode, the collectives and the fused templates (ag_gemm,
// gemm_rs, ulysses_attention): legal values only, edits through the undo stack, "auto" shows
// what the engine picks, and split_kv reads "auto" for `true`.
#include <QComboBox>
#include <QSpinBox>
#include <QtTest>

#include "gui_test_util.h"
#include "tilesight/kernels/mla_decode.h"
#include "ui/bytes_spin_box.h"
#include "ui/config_panel.h"
#include "ui/file_commands.h"
#include "ui/main_window.h"
#include "ui/template_form.h"

using namespace tilesight::ui;

class TemplateFormsTest : public QObject {
  Q_OBJECT

  std::unique_ptr<MainWindow> window_;

  PlanSession& session() { return window_->session(); }
  template <typename T>
  T* editor(const char* key) {
    return qobject_cast<T*>(window_->configPanel()->templateForm()->editor(QString::fromLatin1(key)));
  }
  void open(const char* example) {
    test::ResultWaiter wait(session());
    QVERIFY2(window_->files().openPath(test::example_path(example), true).isEmpty(), example);
    QVERIFY2(wait.waitReady(), example);
    QVERIFY2(window_->configPanel()->editable(), example);
  }
  static QStringList items(QComboBox* combo) {
    QStringList list;
    for (int i = 0; i < combo->count(); ++i) list << combo->itemText(i);
    return list;
  }
  // Runs `edit` and waits for the prediction it causes.
  template <typename F>
  bool predictAfter(F edit) {
    test::ResultWaiter wait(session());
    edit();
    return wait.waitReady();
  }

 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
  void init() {
    window_ = test::quiet_window();
  }
  void cleanup() { window_.reset(); }

  // Every shipped template example now has a form (tile programs stay read-only).
  void everyTemplateExampleIsEditable() {
    for (const QString& path : example_plan_paths()) {
      auto doc = load_plan_file(path);
      QVERIFY(doc);
      if (!doc->contains("params")) continue;
      window_->configPanel()->setPlan(*doc);
      QVERIFY2(window_->configPanel()->editable(), qPrintable(path));
    }
  }

  void llmDecodeEditsTheNestedModelAndUndoes() {
    open("llm_decode_h200x8.json");
    auto* layers = editor<QSpinBox>("model.layers");
    QVERIFY(layers);
    QCOMPARE(layers->value(), 80);
    QCOMPARE(editor<QSpinBox>("tp")->value(), 8);
    QCOMPARE(editor<QSpinBox>("model.expert_ffn")->text(), QStringLiteral("auto (28672)"));  // = ffn
    const double before = session().prediction()->latency_us;
    QVERIFY(predictAfter([&] { layers->setValue(40); }));
    QCOMPARE(session().plan()["params"]["model"]["layers"].get<int>(), 40);
    QCOMPARE(session().plan()["params"]["model"]["hidden"].get<int>(), 8192);  // siblings kept
    // Half the layers: less than half the step's time is gone at most, and some of it.
    const double after = session().prediction()->latency_us;
    QVERIFY2(after < before && after > before / 2 - 1, qPrintable(QString("%1 -> %2").arg(before).arg(after)));
    QVERIFY(predictAfter([&] { session().undoStack().undo(); }));
    QCOMPARE(layers->value(), 80);
    QCOMPARE(session().prediction()->latency_us, before);
    QVERIFY(!session().modified());
  }

  // tp that does not divide the heads: shown under the form on the fields it names, as it
  // is typed; the value stays in the plan.
  void llmDecodeCrossFieldRulesShowInline() {
    open("llm_decode_h200x8.json");
    QVERIFY(window_->configPanel()->problemText().isEmpty());
    auto* tp = editor<QSpinBox>("tp");
    tp->setValue(3);
    QCOMPARE(session().plan()["params"]["tp"].get<int>(), 3);
    const QString text = window_->configPanel()->problemText();
    QVERIFY2(text.contains("model.heads: must be a multiple of tp (3)"), qPrintable(text));
    QCOMPARE(window_->configPanel()->fieldProblem("model.heads"), QString("error"));
    QCOMPARE(window_->configPanel()->fieldProblem("model.layers"), QString());
    tp->setValue(8);
    QVERIFY(window_->configPanel()->problemText().isEmpty());
  }

  void collectiveFormOffersOnlyLegalValues() {
    open("all_reduce_h200x8.json");
    auto* bytes = editor<BytesSpinBox>("bytes");
    QVERIFY(bytes);
    QCOMPARE(bytes->text(), QStringLiteral("256 MiB"));  // 268435456
    auto* devices = editor<QSpinBox>("devices");
    QCOMPARE(devices->maximum(), 8);  // the GPUs of h200x8
    QCOMPARE(devices->minimum(), 2);
    auto* algorithm = editor<QComboBox>("algorithm");
    auto* protocol = editor<QComboBox>("protocol");
    // "auto" names what the tuner picked for this plan (the prediction's collective).
    QCOMPARE(items(algorithm), (QStringList{"auto (ring)", "ring", "tree", "recursive_doubling", "rabenseifner"}));
    QCOMPARE(session().prediction()->network.collectives.at(0).algorithm, std::string("ring"));
    QCOMPARE(items(protocol), (QStringList{"auto (Simple)", "LL", "LL128", "Simple"}));
    QCOMPARE(algorithm->currentText(), QStringLiteral("auto (ring)"));
    // Six GPUs: the power-of-two algorithms cannot run; auto follows the new pick.
    QVERIFY(predictAfter([&] { devices->setValue(6); }));
    const QString six = QString::fromStdString(session().prediction()->network.collectives.at(0).algorithm);
    QCOMPARE(items(algorithm), (QStringList{"auto (" + six + ")", "ring", "tree"}));
    QVERIFY(predictAfter([&] { algorithm->setCurrentText(QStringLiteral("tree")); }));
    QCOMPARE(session().plan()["params"]["algorithm"].get<std::string>(), std::string("tree"));
    QCOMPARE(session().prediction()->network.collectives.at(0).algorithm, std::string("tree"));
    QCOMPARE(algorithm->itemText(0), "auto (" + six + ")");  // still what auto would run
    QVERIFY(predictAfter([&] { protocol->setCurrentText(QStringLiteral("LL")); }));
    QCOMPARE(session().prediction()->network.collectives.at(0).protocol, std::string("LL"));
    // With LL forced nobody has asked the tuner which algorithm it would take: plain "auto".
    QCOMPARE(algorithm->itemText(0), QStringLiteral("auto"));
    // Twice the bytes: a longer collective. Back to auto removes the field.
    const double before = session().prediction()->latency_us;
    QVERIFY(predictAfter([&] { bytes->stepBy(1); }));
    QCOMPARE(session().plan()["params"]["bytes"].get<std::int64_t>(), std::int64_t{536870912});
    QVERIFY(session().prediction()->latency_us > before);
    QVERIFY(predictAfter([&] { algorithm->setCurrentIndex(0); }));
    QVERIFY(!session().plan()["params"].contains("algorithm"));
  }

  void fusedGemmFormEditsCommunication() {
    open("ag_gemm_h200x8.json");
    // Left out, comm_sms is what the engine ran: NCCL's channels where the system profile
    // measures them, else CommFields' 16 (h200x8 has no channel table).
    QCOMPARE(session().prediction()->network.comm_sms, std::int64_t{16});
    QCOMPARE(editor<QSpinBox>("comm_sms")->text(), QStringLiteral("auto (16)"));
    auto* algorithm = editor<QComboBox>("algorithm");
    const QString picked = QString::fromStdString(session().prediction()->network.collectives.at(0).algorithm);
    QCOMPARE(items(algorithm), (QStringList{"auto (" + picked + ")", "ring", "recursive_doubling"}));  // all_gather, 8 GPUs
    auto* overlap = editor<QComboBox>("overlap");
    QCOMPARE(overlap->currentText(), QStringLiteral("fused"));
    const double fused = session().prediction()->latency_us;
    QVERIFY(predictAfter([&] { overlap->setCurrentText(QStringLiteral("none")); }));
    QCOMPARE(session().plan()["params"]["overlap"].get<std::string>(), std::string("none"));
    QVERIFY(session().prediction()->latency_us > fused);  // the all-gather is no longer hidden
    QVERIFY(predictAfter([&] { editor<QSpinBox>("block_n")->setValue(128); }));
    QCOMPARE(session().plan()["params"]["block_n"].get<int>(), 128);
  }

  // On two H200s NCCL runs the 128 MiB all-gather on 24 channels (nccl_channels.py: 24 for a
  // ring of 2 MiB and more): the 24 CTAs are the SMs "auto" holds beside the GEMM.
  void commSmsAutoNamesTheProfilesChannels() {
    open("ag_gemm_h200x8.json");
    QVERIFY(predictAfter([&] { editor<QSpinBox>("devices")->setValue(2); }));
    QVERIFY(predictAfter([&] { window_->configPanel()->hardwareSelector()->setCurrentText(QStringLiteral("h200x2")); }));
    QCOMPARE(QString::fromStdString(session().prediction()->hardware), QStringLiteral("h200x2"));
    QCOMPARE(session().prediction()->network.comm_sms, std::int64_t{24});
    QCOMPARE(editor<QSpinBox>("comm_sms")->text(), QStringLiteral("auto (24)"));
    // A value typed in is the plan's, and what the engine runs.
    QVERIFY(predictAfter([&] { editor<QSpinBox>("comm_sms")->setValue(8); }));
    QCOMPARE(session().prediction()->network.comm_sms, std::int64_t{8});
    QCOMPARE(editor<QSpinBox>("comm_sms")->text(), QStringLiteral("8"));
  }

  void ulyssesFormHasAttentionAndAllToAll() {
    open("ulysses_h200x8.json");
    QCOMPARE(editor<QSpinBox>("heads")->value(), 64);
    QCOMPARE(editor<QSpinBox>("devices")->value(), 8);
    const QString picked = QString::fromStdString(session().prediction()->network.collectives.at(0).algorithm);
    QCOMPARE(items(editor<QComboBox>("algorithm")), (QStringList{"auto (" + picked + ")", "direct", "pairwise"}));
    QCOMPARE(items(editor<QComboBox>("dtype")), (QStringList{"auto (bf16)", "bf16", "fp16"}));
  }

  void splitKvReadsAuto() {
    open("attention_decode_h200.json");  // "split_kv": true
    auto* split = editor<QSpinBox>("split_kv");
    QCOMPARE(split->value(), split->minimum());
    // 16 sequences x 8 KV heads x 1 query block = 128 tiles, under 80% of twice the SMs: FA2's
    // heuristic splits the keys 2 ways (256 tiles fill 97% of 264 slots).
    QCOMPARE(split->text(), QStringLiteral("auto (2)"));
    QVERIFY(predictAfter([&] { split->setValue(4); }));
    QCOMPARE(session().plan()["params"]["split_kv"].get<int>(), 4);
    QVERIFY(predictAfter([&] { split->setValue(split->minimum()); }));
    QCOMPARE(session().plan()["params"]["split_kv"], nlohmann::json(true));
    // A prefill plan without the field runs unsplit: it reads 1, not auto.
    open("attention_prefill_h200.json");
    QCOMPARE(editor<QSpinBox>("split_kv")->text(), QStringLiteral("1"));
    // mla_decode's missing split_kv is the template's own count.
    open("mla_decode_h200.json");
    const auto mla = tilesight::kernels::parse_mla_decode_params(test::example("mla_decode_h200.json")["params"]);
    QVERIFY(mla);
    QCOMPARE(editor<QSpinBox>("split_kv")->text(), QStringLiteral("auto (%1)").arg(mla->split_kv));
  }

  void bytesSpinBoxReadsAndWritesSizes() {
    QCOMPARE(BytesSpinBox::format(268435456), QStringLiteral("256 MiB"));
    QCOMPARE(BytesSpinBox::format(1610612736), QStringLiteral("1536 MiB"));
    QCOMPARE(BytesSpinBox::format(1000), QStringLiteral("1000 B"));
    QCOMPARE(BytesSpinBox::parse("256 MiB").value_or(-1), 268435456.0);
    QCOMPARE(BytesSpinBox::parse("1.5 GiB").value_or(-1), 1610612736.0);
    QCOMPARE(BytesSpinBox::parse("64k").value_or(-1), 65536.0);
    QCOMPARE(BytesSpinBox::parse("4096").value_or(-1), 4096.0);
    QCOMPARE(BytesSpinBox::parse("1 MB").value_or(-1), 1e6);
    QVERIFY(!BytesSpinBox::parse("lots"));
  }
};

QTEST_MAIN(TemplateFormsTest)
#include "test_template_forms.moc"
