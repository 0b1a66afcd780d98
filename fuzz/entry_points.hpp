#pragma once
// Fuzzing entry points: one per input reader, each feeding one input to the library exactly as a
// user's file reaches it. The libFuzzer harnesses (fuzz_<name>.cpp, clang, -DPLANSIM_FUZZ=ON) and the
// corpus replay test (tests/fuzz/test_corpus_replay.cpp, any compiler, in CI) call the same functions.
//
// Contract: an entry point returns normally when the reader accepts the input or rejects it with a
// ConfigError (io::UnitError for bare unit strings): the one outcome a bad input may have. Any other
// exception escapes (the fuzzer reports a crash, the replay test fails), as do crashes, sanitizer
// findings and timeouts.
#include <string_view>
#include <vector>

namespace plansim::fuzz {

void topology(std::string_view data);        // a topology YAML; built, one route looked up
void scenario(std::string_view data);        // a scenario YAML, then '\0'-separated --set overrides
void units(std::string_view data);           // first byte picks the parser, the rest is the text
void calibration(std::string_view data);     // an NCCL calibration profile (validate/calibration/*.yaml)
void bench(std::string_view data);           // plansim-hw bench JSON, then calibrated
void nccl_compare(std::string_view data);    // a published nccl-tests table (validate/nccl/*.yaml)
void report_timings(std::string_view data);  // a report's timings, validated against themselves
void nccl_tests(std::string_view data);      // an nccl-tests log (stdout or -J JSON), then calibrated

struct Harness {
  const char* name;  // fuzz/corpus/<name>, fuzz_<name>
  void (*run)(std::string_view);
};
const std::vector<Harness>& harnesses();

}  // namespace plansim::fuzz
