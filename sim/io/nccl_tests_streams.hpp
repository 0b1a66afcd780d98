#pragma once
// io-internal: nccl-tests text logs as launchers print them. Lines are freed of launcher prefixes
// (OpenMPI --tag-output, Intel MPI -prepend-rank, srun --label, kubectl --timestamps / --prefix, pdsh) and sorted into one
// stream per process tag, so that the interleaved output of several processes does not mix
// (nccl_tests_text.cpp then reads each stream).
#include <string>
#include <string_view>
#include <vector>

namespace plansim::io {

inline bool is_digit(char c) { return c >= '0' && c <= '9'; }
inline bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (const char c : s)
    if (!is_digit(c)) return false;
  return true;
}
inline bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

struct LogLine {
  std::string text;  // without prefixes
  int number = 0;
  int column = 1;    // the column of text[0] in the file's line
};

struct ProcessStream {
  std::string tag;
  std::vector<LogLine> lines;
};

// The file's lines, by process tag, in order of first appearance ("" = untagged).
std::vector<ProcessStream> demultiplex(const std::string& text);

}  // namespace plansim::io
