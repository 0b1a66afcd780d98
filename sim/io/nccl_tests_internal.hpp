#pragma once
// io-internal: the two syntaxes of nccl-tests output (nccl_tests_reader.hpp). Each returns the runs as
// printed, with op, rank count and GPU model not yet resolved (nccl_tests_reader.cpp does that).
#include <string>
#include <vector>

#include "sim/io/nccl_tests_reader.hpp"

namespace plansim::io {

// What a text log says beside its runs: the binary named on a command line, NCCL_ALGO/NCCL_PROTO and the
// NCCL version from NCCL INFO lines. Per run where the run's own stream shows it, else file-wide.
std::vector<NcclTestsRun> parse_nccl_tests_text(const std::string& text, const std::string& name);
std::vector<NcclTestsRun> parse_nccl_tests_json(const std::string& text, const std::string& name);

// Characters are counted from 1; spaces and tabs separate tokens.
struct Token {
  std::string text;
  int column = 0;
};
std::vector<Token> split_tokens(const std::string& line, int first_column = 1);

}  // namespace plansim::io
