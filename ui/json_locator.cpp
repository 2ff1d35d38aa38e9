#include "ui/json_locator.h"

#include <map>
#include <string>

namespace tilesight::ui {

namespace {

// A forgiving single pass over the text recording the line of every key and array element.
class Scanner {
 public:
  explicit Scanner(std::string_view text) : text_(text) {}

  std::map<std::string, int> scan() {
    value("");
    return lines_;
  }

 private:
  bool done() const { return at_ >= text_.size(); }
  char peek() const { return done() ? '\0' : text_[at_]; }
  void step() {
    if (!done() && text_[at_] == '\n') ++line_;
    ++at_;
  }
  void space() {
    while (!done() && (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r')) step();
  }
  std::string string() {
    std::string s;
    step();  // opening quote
    while (!done() && peek() != '"') {
      if (peek() == '\\') step();
      s += peek();
      step();
    }
    step();
    return s;
  }
  void value(const std::string& path) {
    space();
    if (done()) return;
    if (peek() == '{') return object(path);
    if (peek() == '[') return array(path);
    if (peek() == '"') return void(string());
    while (!done() && peek() != ',' && peek() != '}' && peek() != ']' && peek() != '\n') step();
  }
  void object(const std::string& path) {
    step();
    for (space(); !done() && peek() != '}'; space()) {
      if (peek() != '"') return;  // not JSON: stop, keep what was found
      const int line = line_;
      const std::string key = path.empty() ? string() : path + "." + string();
      lines_.emplace(key, line);
      space();
      if (peek() != ':') return;
      step();
      value(key);
      space();
      if (peek() == ',') step();
    }
    step();
  }
  void array(const std::string& path) {
    step();
    int i = 0;
    for (space(); !done() && peek() != ']'; space()) {
      const std::string element = path + "[" + std::to_string(i++) + "]";
      lines_.emplace(element, line_);
      const std::size_t before = at_;
      value(element);
      space();
      if (peek() == ',') step();
      if (at_ == before) return;  // no progress: not JSON
    }
    step();
  }

  std::string_view text_;
  std::size_t at_ = 0;
  int line_ = 1;
  std::map<std::string, int> lines_;
};

}  // namespace

int line_of_json_path(std::string_view text, std::string_view path) {
  const auto lines = Scanner(text).scan();
  std::string p(path);
  while (!p.empty()) {
    if (const auto it = lines.find(p); it != lines.end()) return it->second;
    const auto cut = p.find_last_of(".[");
    if (cut == std::string::npos) break;
    p.resize(cut);
  }
  return 0;
}

}  // namespace tilesight::ui
