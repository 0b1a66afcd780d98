#include "sim/io/nccl_tests_streams.hpp"

#include <cctype>
#include <map>

namespace plansim::io {
namespace {

// The length of one launcher prefix at the start of `s` (0 if none); `tag` names the process it tags.
//   OpenMPI --tag-output "[1,0]<stdout>:", Intel MPI -prepend-rank "[0] ", srun --label "0: " / " 12: ",
//   an ISO 8601 timestamp "2024-05-01T12:00:00.123Z " (kubectl logs --timestamps), kubectl logs --prefix
//   "[pod/NAME/CONTAINER] ", pdsh / clush "HOST: ".
size_t launcher_prefix(std::string_view s, std::string& tag) {
  if (starts_with(s, "[pod/")) {
    const size_t close = s.find(']');
    if (close != std::string_view::npos && close + 1 < s.size() && s[close + 1] == ' ') {
      tag = std::string(s.substr(1, close - 1));
      return close + 2;
    }
  }
  if (!s.empty() && s[0] == '[') {
    const size_t close = s.find(']');
    if (close != std::string_view::npos && close > 1 && close <= 24) {
      const std::string_view inside = s.substr(1, close - 1);
      bool ok = is_digit(inside.front()) && is_digit(inside.back());
      for (const char c : inside) ok = ok && (is_digit(c) || c == ',');
      if (ok) {
        size_t k = close + 1;
        const bool stream = starts_with(s.substr(k), "<stdout>") || starts_with(s.substr(k), "<stderr>");
        if (stream) k += 8;
        if (k < s.size() && s[k] == ':') ++k;
        else if (!stream && !(k < s.size() && s[k] == ' ')) return 0;
        if (k < s.size() && s[k] == ' ') ++k;
        const size_t comma = inside.rfind(',');
        tag = std::string(inside.substr(comma == std::string_view::npos ? 0 : comma + 1));
        return k;
      }
    }
  }
  size_t k = 0;
  while (k < s.size() && s[k] == ' ') ++k;
  size_t d = k;
  while (d < s.size() && is_digit(s[d])) ++d;
  if (d > k && d - k <= 7 && d < s.size() && s[d] == ':' && (d + 1 == s.size() || s[d + 1] == ' ')) {
    tag = std::string(s.substr(k, d - k));
    return d + 1 < s.size() ? d + 2 : d + 1;
  }
  if (s.size() >= 20 && all_digits(s.substr(0, 4)) && s[4] == '-' && s[7] == '-' && s[10] == 'T' && is_digit(s[11])) {
    const size_t space = s.find(' ');
    if (space != std::string_view::npos) return space + 1;
  }
  // pdsh / clush: a host name and ": ". NCCL's own lines start "HOST:PID:TID", with no space after the colon.
  size_t h = 0;
  while (h < s.size() && h < 254 && (std::isalnum(static_cast<unsigned char>(s[h])) || s[h] == '.' || s[h] == '-' || s[h] == '_'))
    ++h;
  if (h > 0 && std::isalnum(static_cast<unsigned char>(s[0])) && h + 1 < s.size() && s[h] == ':' && s[h + 1] == ' ') {
    tag = std::string(s.substr(0, h));
    return h + 2;
  }
  return 0;
}

}  // namespace

// The file's lines, by process tag, in order of first appearance ("" = untagged).
std::vector<ProcessStream> demultiplex(const std::string& text) {
  std::vector<ProcessStream> streams;
  std::map<std::string, size_t> index;
  size_t pos = 0;
  int number = 0;
  while (pos <= text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    ++number;
    std::string_view line(text.data() + pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    std::string tag, t;
    size_t cut = 0;
    for (int i = 0; i < 3; ++i) {
      const size_t n = launcher_prefix(line.substr(cut), t);
      if (n == 0) break;
      cut += n;
      if (!t.empty()) tag = t;
    }
    auto [it, fresh] = index.emplace(tag, streams.size());
    if (fresh) streams.push_back({tag, {}});
    streams[it->second].lines.push_back({std::string(line.substr(cut)), number, static_cast<int>(cut) + 1});
    if (end == text.size()) break;
    pos = end + 1;
  }
  return streams;
}

}  // namespace plansim::io
