// Structural checks of every YAML input (sim/io/yaml_scan.cpp, yaml_reader.cpp): duplicate keys, a
// second document, non-scalar keys, alias bombs, size caps, directories and special files, and an
// unknown key next to a missing required one.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <filesystem>
#include <string>

#include "sim/io/scenario_loader.hpp"
#include "sim/io/yaml_reader.hpp"

using namespace plansim;
using namespace plansim::io;

namespace {
template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "<no error>";
}
std::string parse_error(const std::string& text) {
  return error_of([&] { (void)YamlFile::parse(text, "t.yaml"); });
}
}  // namespace

TEST_CASE("yaml structure: a key given twice is an error at the second, naming the first", "[io][yaml]") {
  CHECK(parse_error("a: 1\nb: 2\na: 3\n") == "t.yaml:3:1: duplicate key 'a' (first at line 1, column 1); each key may appear once");
  CHECK(parse_error("m: {x: 1, y: 2, x: 3}\n") ==
        "t.yaml:1:17: duplicate key 'x' (first at line 1, column 5); each key may appear once");
  CHECK(parse_error("- {a: 1}\n- {a: 2}\n") == "<no error>");  // one key per mapping, two mappings
  CHECK(parse_error("a:\n  b: 1\nc:\n  b: 2\n") == "<no error>");
  CHECK(error_of([] { (void)parse_value("{a: 1, a: 2}", "--set m={a: 1, a: 2}"); }) ==
        "--set m={a: 1, a: 2}: duplicate key 'a' (first at line 1, column 2); each key may appear once");
}

TEST_CASE("yaml structure: one document per file", "[io][yaml]") {
  CHECK(parse_error("a: 1\n---\nb: 2\n") ==
        "t.yaml:2:1: a second YAML document starts here (after '---'; the first began at line 1, column 1): one "
        "document per file");
  CHECK(parse_error("a: 1\n---\n").find("t.yaml:2:1: a second YAML document") == 0);
  CHECK(parse_error("---\na: 1\n...\n") == "<no error>");
}

TEST_CASE("yaml structure: keys must be plain scalars", "[io][yaml]") {
  CHECK(parse_error("{[x]: 1}") == "t.yaml:1:2: a key must be a plain word or number, not a list");
  CHECK(parse_error("? : 2\n") == "t.yaml:1:3: a key must be a plain word or number, not a mapping");
  CHECK(parse_error("~: 4\n") == "t.yaml:1:1: a key must be a plain word or number, not null (an empty key or '~')");
  CHECK(parse_error("a: &k x\n*k : 1\n").find("not an alias") != std::string::npos);
  CHECK(parse_error("a: [1, 2]\nb: {c: 1}\n") == "<no error>");
}

TEST_CASE("yaml structure: size caps and alias bombs", "[io][yaml][limits]") {
  std::string bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  for (char c = 'b'; c <= 'h'; ++c)
    bomb += fmt::format("{}: &{} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n", c, c,
                        fmt::arg("p", static_cast<char>(c - 1)));
  CHECK(parse_error(bomb).find("aliases here expand to more than 1000000 values") != std::string::npos);
  std::string many = "a: [";
  for (int i = 0; i < 120000; ++i) many += "1,";
  many += "1]\n";
  CHECK(parse_error(many).find("more than 100000 values") != std::string::npos);
  CHECK(parse_error(std::string(3 * 1024 * 1024, ' ')).find("larger than 2 MiB") != std::string::npos);
  CHECK(parse_error("a: " + std::string(5000, '[') + std::string(5000, ']')).find("t.yaml:") == 0);
}

TEST_CASE("yaml structure: directories and special files are I/O errors", "[io][yaml]") {
  CHECK(error_of([] { (void)YamlFile::load(PLANSIM_SOURCE_DIR "/topologies"); }) ==
        PLANSIM_SOURCE_DIR "/topologies: is a directory, not a file");
  if (std::filesystem::exists("/dev/zero"))
    CHECK(error_of([] { (void)YamlFile::load("/dev/zero"); }) ==
          "/dev/zero: the file is larger than 2 MiB, the cap on input files (README 'Limits')");
  if (std::filesystem::exists("/dev/null"))
    CHECK(error_of([] { (void)YamlFile::load("/dev/null"); }) == "/dev/null:1:1: the document is empty");
}

TEST_CASE("yaml structure: a misspelt key next to a missing required one is named", "[io][yaml]") {
  const YamlFile f = YamlFile::parse("layerz: 4\nhidden: 8\n", "t.yaml");
  MapReader m(f, f.root(), "model");
  CHECK(error_of([&] { (void)m.positive_int("layers"); }) ==
        "t.yaml:1:1: unknown key 'layerz' in model (did you mean 'layers'? model requires it)");
  const YamlFile g = YamlFile::parse("hidden: 8\n", "t.yaml");
  MapReader n(g, g.root(), "model");
  CHECK(error_of([&] { (void)n.positive_int("layers"); }) == "t.yaml:1:1: model is missing the required key 'layers'");
}

TEST_CASE("yaml structure: reals are finite and integers fit", "[io][yaml][limits]") {
  const YamlFile f = YamlFile::parse("a: .nan\nb: .inf\nc: 1e999\nd: 4294967312\ne: 0x10\nf: 1.5\n", "t.yaml");
  MapReader m(f, f.root(), "x");
  CHECK(error_of([&] { (void)m.required<double>("a"); }) == "t.yaml:1:4: 'a' must be a finite number, got '.nan'");
  CHECK(error_of([&] { (void)m.positive_double("b"); }) == "t.yaml:2:4: 'b' must be a finite number, got '.inf'");
  CHECK(error_of([&] { (void)m.required<double>("c"); }).find("t.yaml:3:4: 'c' '1e999' is out of range") == 0);
  CHECK(error_of([&] { (void)m.required<int>("d"); }) ==
        "t.yaml:4:4: 'd' must be an integer from -2,147,483,648 to 2,147,483,647, got 4,294,967,312");
  CHECK(m.required<int64_t>("d") == 4294967312);
  CHECK(m.required<int>("e") == 16);
  CHECK(error_of([&] { (void)m.required<int>("f"); }).find("got '1.5'") != std::string::npos);
}

TEST_CASE("scenario file check: the file's own problems, before any point runs", "[io][yaml]") {
  const std::string bad = PLANSIM_SOURCE_DIR "/tests/data/bad/scenario/";
  CHECK_NOTHROW(check_scenario_file(PLANSIM_SOURCE_DIR "/scenarios/seed-pipeline-4x16.yaml", {}));
  CHECK_NOTHROW(check_scenario_file(PLANSIM_SOURCE_DIR "/scenarios/seed-pipeline-4x16.yaml", {"parallel.dp=3"}));
  CHECK_THROWS_AS(check_scenario_file(bad + "duplicate_key.yaml", {}), ConfigError);
  CHECK_THROWS_AS(check_scenario_file(bad + "layerz.yaml", {}), ConfigError);
  CHECK_THROWS_AS(check_scenario_file(bad + "scalar_document.yaml", {"model.layers=2"}), ConfigError);
  CHECK_THROWS_AS(check_scenario_file(PLANSIM_SOURCE_DIR "/scenarios/seed-pipeline-4x16.yaml", {"model.layerz=2"}),
                  ConfigError);
}
