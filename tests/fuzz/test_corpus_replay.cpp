// Replays every fuzz seed (fuzz/corpus/<harness>/*) and every bad-input file (tests/data/bad/<harness>/*)
// through the same entry points the libFuzzer harnesses call (fuzz/entry_points.hpp), with whatever
// compiler built the tests: every input must be accepted or rejected with a ConfigError, never reach
// another exception (which would be exit 70, "internal error", in the CLI). Runs in CI without clang.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "fuzz/entry_points.hpp"

namespace fs = std::filesystem;

namespace {

std::vector<fs::path> files_under(const fs::path& dir) {
  std::vector<fs::path> out;
  if (!fs::is_directory(dir)) return out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file()) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("every fuzz corpus and bad-input file gives a ConfigError or nothing, never another exception", "[fuzz]") {
  const fs::path src = PLANSIM_SOURCE_DIR;
  size_t replayed = 0;
  for (const auto& h : plansim::fuzz::harnesses()) {
    std::vector<fs::path> inputs = files_under(src / "fuzz" / "corpus" / h.name);
    const auto bad = files_under(src / "tests" / "data" / "bad" / h.name);
    inputs.insert(inputs.end(), bad.begin(), bad.end());
    CHECK(!inputs.empty());
    for (const auto& f : inputs) {
      INFO(h.name << ": " << f.string());
      const std::string data = read_all(f);
      CHECK_NOTHROW(h.run(data));
      ++replayed;
    }
  }
  CHECK(replayed > 100);
}
