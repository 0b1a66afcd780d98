#include "sim/io/yaml_scan.hpp"

#include <fmt/format.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <map>
#include <sstream>
#include <unordered_map>
#include <vector>

namespace plansim::io {
namespace {

struct Container {
  bool is_map = false;
  bool expect_key = true;                   // maps: the next value is a key
  std::map<std::string, YAML::Mark> keys;   // maps: keys seen, with their positions
  YAML::anchor_t anchor = 0;
  long start = 0;                           // expanded count when the container began
};

class Scanner : public YAML::EventHandler {
 public:
  Scanner(std::string name, std::string where) : name_(std::move(name)), where_(std::move(where)) {}

  void OnDocumentStart(const YAML::Mark& mark) override {
    if (++documents_ == 1) {
      first_doc_ = mark;
      return;
    }
    fail(mark, fmt::format("a second YAML document starts here (after '---'; the first began at line {}, column {}): "
                           "one document per file",
                           first_doc_.line + 1, first_doc_.column + 1));
  }
  void OnDocumentEnd() override {}

  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    key_check(mark, "null (an empty key or '~')");
    value(mark, 1, anchor);
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    key_check(mark, "an alias");
    auto it = sizes_.find(anchor);
    value(mark, it == sizes_.end() ? 1 : it->second, 0);
  }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor, const std::string& text) override {
    if (!stack_.empty() && stack_.back().is_map && stack_.back().expect_key) {
      auto [it, fresh] = stack_.back().keys.emplace(text, mark);
      if (!fresh)
        fail(mark, fmt::format("duplicate key '{}' (first at line {}, column {}); each key may appear once", text,
                               it->second.line + 1, it->second.column + 1));
    }
    value(mark, 1, anchor);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open(mark, false, anchor);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor, YAML::EmitterStyle::value) override {
    open(mark, true, anchor);
  }
  void OnMapEnd() override { close(); }

 private:
  [[noreturn]] void fail(const YAML::Mark& mark, const std::string& message) const {
    if (!where_.empty()) throw ConfigError(SourcePos{where_, 0, 0}, message);
    throw ConfigError(SourcePos{name_, mark.line + 1, mark.column + 1}, message);
  }
  // A key must be a plain scalar: lists, mappings, nulls and aliases as keys are refused.
  void key_check(const YAML::Mark& mark, const char* what) const {
    if (!stack_.empty() && stack_.back().is_map && stack_.back().expect_key)
      fail(mark, fmt::format("a key must be a plain word or number, not {}", what));
  }
  void open(const YAML::Mark& mark, bool is_map, YAML::anchor_t anchor) {
    key_check(mark, is_map ? "a mapping" : "a list");
    count(mark, 1);
    stack_.push_back(Container{is_map, true, {}, anchor, expanded_ - 1});
  }
  void close() {
    const Container c = std::move(stack_.back());
    stack_.pop_back();
    if (c.anchor) sizes_[c.anchor] = expanded_ - c.start;
    advance();
  }
  void value(const YAML::Mark& mark, long size, YAML::anchor_t anchor) {
    count(mark, size);
    if (anchor) sizes_[anchor] = size;
    advance();
  }
  void advance() {
    if (!stack_.empty() && stack_.back().is_map) stack_.back().expect_key = !stack_.back().expect_key;
  }
  void count(const YAML::Mark& mark, long size) {
    ++values_;
    expanded_ += size;
    if (values_ > limits::kMaxYamlValues)
      fail(mark, fmt::format("more than {} values: larger than any plansim input (README 'Limits')",
                             limits::kMaxYamlValues));
    if (expanded_ > limits::kMaxYamlExpandedValues)
      fail(mark, fmt::format("aliases here expand to more than {} values (README 'Limits')",
                             limits::kMaxYamlExpandedValues));
  }

  std::string name_, where_;
  int documents_ = 0;
  YAML::Mark first_doc_;
  std::vector<Container> stack_;
  std::unordered_map<YAML::anchor_t, long> sizes_;
  long values_ = 0;
  long expanded_ = 0;
};

}  // namespace

void scan_yaml(const std::string& text, const std::string& name, const std::string& where) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  Scanner scanner(name, where);
  try {
    while (parser.HandleNextDocument(scanner)) {
    }
  } catch (const YAML::Exception&) {
    // Syntax errors: the tree builder reports them (same parser, same position).
  }
}

}  // namespace plansim::io
