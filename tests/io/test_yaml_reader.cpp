#include <catch2/catch.hpp>

#include "sim/io/yaml_reader.hpp"

using namespace plansim;
using namespace plansim::io;

namespace {
// Runs f and returns the ConfigError's "file:line:col: message" text.
template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "<no error>";
}
}  // namespace

TEST_CASE("yaml reader: syntax errors carry file:line:col", "[io]") {
  CHECK(error_of([] { YamlFile::parse("a: 1\nb: [1, 2\n", "t.yaml"); }).rfind("t.yaml:3:1: YAML syntax error", 0) == 0);
}

TEST_CASE("yaml reader: file not found", "[io]") {
  CHECK(error_of([] { YamlFile::load("/nonexistent/x.yaml"); }) ==
        "/nonexistent/x.yaml: cannot open file: no such file (paths are relative to the current directory)");
}

TEST_CASE("yaml reader: unknown key suggests the closest known one", "[io]") {
  auto f = YamlFile::parse("nodes: 4\nbandwith: 50 GB/s\n", "t.yaml");
  MapReader m(f, f.root(), "the fabric");
  CHECK(m.positive_int("nodes") == 4);
  (void)m.has("bandwidth");
  CHECK(error_of([&] { m.finish(); }) == "t.yaml:2:1: unknown key 'bandwith' in the fabric (did you mean 'bandwidth'?)");
}

TEST_CASE("yaml reader: missing, wrong type, non-positive", "[io]") {
  auto f = YamlFile::parse("nodes: four\nsize: 0 GB\nn: -3\nbw: 400 Gb\nlist: [1]\n", "t.yaml");
  MapReader m(f, f.root(), "the node");
  CHECK(error_of([&] { (void)m.positive_int("gpus"); }) == "t.yaml:1:1: the node is missing the required key 'gpus'");
  CHECK(error_of([&] { (void)m.positive_int("nodes"); }) == "t.yaml:1:8: 'nodes' must be an integer from 1 to 16,777,216, got 'four'");
  CHECK(error_of([&] { (void)m.positive_bytes("size"); }) == "t.yaml:2:7: 'size' must be a positive size, got '0 GB'");
  CHECK(error_of([&] { (void)m.positive_int("n"); }) == "t.yaml:3:4: 'n' must be an integer from 1 to 16,777,216, got -3");
  CHECK(error_of([&] { (void)m.positive_rate("bw"); }).find("t.yaml:4:5: 'bw': rate '400 Gb' needs a unit per second") == 0);
  CHECK(error_of([&] { (void)m.required<int>("list"); }) == "t.yaml:5:7: 'list' must be a single value, not a list");
}

TEST_CASE("yaml reader: choices list the allowed words", "[io]") {
  auto f = YamlFile::parse("kind: infiniban\n", "t.yaml");
  MapReader m(f, f.root(), "the nic");
  CHECK(error_of([&] { (void)m.choice("kind", {"infiniband", "ethernet"}); }) ==
        "t.yaml:1:7: 'kind' must be one of infiniband, ethernet, got 'infiniban' (did you mean 'infiniband'?)");
}

TEST_CASE("did_you_mean ignores distant words", "[io]") {
  CHECK(did_you_mean("bandwith", {"bandwidth", "latency"}) == std::optional<std::string>("bandwidth"));
  CHECK_FALSE(did_you_mean("xyz", {"bandwidth", "latency"}).has_value());
}
