#pragma once
// Shared by the nccl-tests reader's tests (tests/io/test_nccl_tests_reader.cpp, test_nccl_tests_wild_logs.cpp): the
// fixtures of tests/data/nccl_tests/ and small logs written inline.
#include <fstream>
#include <sstream>
#include <string>

#include "sim/io/nccl_tests_reader.hpp"

namespace plansim::test_nccl {

inline std::string data(const std::string& f) { return std::string(PLANSIM_SOURCE_DIR) + "/tests/data/nccl_tests/" + f; }

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The error message of parsing `text` (named "t.log"), or "" when it parses.
inline std::string error_of(const std::string& text, const io::NcclTestsHints& hints = {}) {
  try {
    (void)io::parse_nccl_tests(text, "t.log", hints);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

// A minimal current-layout log: 2 ranks on one host, with `rows` as the table.
inline std::string small_log(const std::string& program, const std::string& rows, int ranks = 2) {
  std::string t;
  if (!program.empty()) t += "# Collective test starting: " + program + "\n";
  t += "# nThread 1 nGpus " + std::to_string(ranks) + " minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 5 iters: 20\n";
  t += "# Using devices\n";
  for (int r = 0; r < ranks; ++r)
    t += "#  Rank  " + std::to_string(r) + " Group  0 Pid   1 on   host device  " + std::to_string(r) +
         " [0x01] NVIDIA H100 80GB HBM3\n";
  t += "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n";
  t += "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)\n";
  return t + rows;
}


}  // namespace plansim::test_nccl
