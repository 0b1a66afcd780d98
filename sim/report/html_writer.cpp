#include "sim/report/html_writer.hpp"

#include <fmt/format.h>

#include <cmath>
#include <set>

namespace plansim::html {

std::string escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

namespace {

// The value of every `id="..."` / `id='...'` attribute in `svg`.
std::set<std::string> ids_of(std::string_view svg) {
  std::set<std::string> ids;
  for (size_t i = 0; (i = svg.find("id=", i)) != std::string_view::npos; i += 3) {
    if (i == 0 || !(svg[i - 1] == ' ' || svg[i - 1] == '\n' || svg[i - 1] == '\t')) continue;
    const char q = i + 3 < svg.size() ? svg[i + 3] : '\0';
    if (q != '"' && q != '\'') continue;
    const size_t end = svg.find(q, i + 4);
    if (end == std::string_view::npos) break;
    ids.insert(std::string(svg.substr(i + 4, end - i - 4)));
  }
  return ids;
}

void replace_all(std::string& s, const std::string& from, const std::string& to) {
  for (size_t p = 0; (p = s.find(from, p)) != std::string::npos; p += to.size()) s.replace(p, from.size(), to);
}

// Removes the attribute `name="..."` (or '...') from the first tag of `s` starting at `tag`.
void drop_attribute(std::string& s, size_t tag, const std::string& name) {
  const size_t tag_end = s.find('>', tag);
  const size_t at = s.find(" " + name + "=", tag);
  if (at == std::string::npos || at > tag_end) return;
  const size_t q = at + name.size() + 2;
  if (q >= s.size() || (s[q] != '"' && s[q] != '\'')) return;
  const size_t end = s.find(s[q], q + 1);
  if (end == std::string::npos) return;
  s.erase(at, end + 1 - at);
}

}  // namespace

std::string inline_svg(std::string_view svg, const std::string& prefix) {
  const size_t start = svg.find("<svg");
  if (start == std::string_view::npos) return "";
  std::string out(svg.substr(start));
  drop_attribute(out, 0, "xmlns");
  drop_attribute(out, 0, "xmlns:xlink");
  drop_attribute(out, 0, "onload");  // gnuplot's `mouse` option: its script would name an external file
  for (size_t at; (at = out.find("<script")) != std::string::npos;) {
    const size_t tag_end = out.find('>', at);
    if (tag_end == std::string::npos) {
      out.erase(at);
      break;
    }
    const size_t close = out[tag_end - 1] == '/' ? std::string::npos : out.find("</script>", tag_end);
    out.erase(at, close == std::string::npos ? tag_end + 1 - at : close + 9 - at);
  }
  for (const std::string& id : ids_of(out)) {
    const std::string to = prefix + id;
    for (const char* q : {"\"", "'"}) {
      replace_all(out, std::string("id=") + q + id + q, std::string("id=") + q + to + q);
      replace_all(out, std::string("#") + id + q, std::string("#") + to + q);  // href="#id"
    }
    replace_all(out, "url(#" + id + ")", "url(#" + to + ")");
  }
  return out;
}

const std::vector<Definition>& definitions() {
  static const std::vector<Definition> defs = {
      {"iteration", "Iteration time",
       "From the start of the iteration to the last op of any rank (optimizer step and parameter all-gathers "
       "included). Seconds."},
      {"tokens", "tokens/s", "global_batch · seq_len / iteration time."},
      {"tflops", "TFLOP/s per GPU",
       "Model FLOPs / (iteration time · GPUs), in 10^12 FLOP/s; the hardware figure counts recompute (what "
       "Megatron papers report)."},
      {"mfu", "MFU",
       "Model FLOPs utilisation: model FLOPs (forward + backward, no recompute) / (iteration time · GPUs · "
       "dense peak FLOP/s of the model dtype)."},
      {"hfu", "HFU", "Hardware FLOPs utilisation: as MFU, with recompute counted."},
      {"bubble", "Pipeline bubble",
       "bubble_fraction (per stage): idle time of the stage's compute stream inside the pipeline flush window / "
       "iteration time (idle while one of the rank's own transfers is in flight is exposed communication, not "
       "bubble). bubble_overhead: that idle time / the stage's busy forward/backward compute time ((p−1)/m for "
       "ideal 1F1B). The summary shows the mean over stages."},
      {"overlap", "Overlap",
       "Communication time hidden under compute / total communication time (lengths of unions of intervals), "
       "summed over executed ranks."},
      {"exposed", "Exposed communication",
       "exposed_comm_s[dim]: time a rank has a transfer of that dimension (TP, CP, EP, DP, PP) in flight and no "
       "compute running, mean over executed ranks, in seconds per iteration. The gradient-norm all-reduce counts "
       "under PP."},
      {"memory", "Memory per GPU",
       "Per stage: weights, gradients and optimizer states (divided over DP by the ZeRO stage), activations held "
       "at the schedule's peak, and temporary buffers (logits, gradient buckets, gathered layers). Over the GPU's "
       "HBM capacity: out of memory (OOM). GB = 10^9 bytes."},
      {"lint-cost", "Measured cost of a finding",
       "The finding's best fix is simulated: saved = base iteration time − the time for the same tokens at the "
       "fixed plan's rate (seconds and % of the base iteration); tokens/s gain = fixed − base."},
      {"validate-rel", "Relative error (validate)",
       "(simulated − measured) / measured. Per op class: the median and the maximum of |relative error| over the "
       "matched ops, and the class totals per iteration."},
      {"mape", "MAPE, max, bias (published runs)",
       "Per data set: mean |throughput error| over its runs, the largest |error|, and the mean signed error "
       "(positive: plansim predicts more throughput than was published)."},
      {"symmetry", "Symmetry",
       "Exact shortcuts of the simulator: TP folding (one rank of a TP group executed for the group when its "
       "siblings stay in lockstep), the TP-collective memo and DP folding; the figures are those of the full run."},
  };
  return defs;
}

std::string defined(const std::string& label, const std::string& id) {
  for (const Definition& d : definitions())
    if (id == d.id)
      return fmt::format("<a class=\"def\" href=\"#def-{}\" title=\"{}\">{}</a>", d.id, escape(d.text), label);
  return label;
}

std::string definitions_section() {
  std::string out =
      "<section id=\"definitions\"><h2>Definitions</h2>\n<p>As in plansim's README, section "
      "&ldquo;Definitions&rdquo;.</p>\n<dl>\n";
  for (const Definition& d : definitions())
    out += fmt::format("<dt id=\"def-{}\">{}</dt><dd>{}</dd>\n", d.id, escape(d.term), escape(d.text));
  return out + "</dl></section>\n";
}

std::string summary_row(const std::string& what_html, const std::string& value, const std::string& unit,
                        const std::string& css_class) {
  return fmt::format("<tr{}><th scope=\"row\">{}</th><td class=\"num\">{}</td><td class=\"unit\">{}</td></tr>\n",
                     css_class.empty() ? "" : " class=\"" + css_class + "\"", what_html, value, unit);
}

std::string text_row(const std::string& what_html, const std::string& text_html) {
  return fmt::format("<tr><th scope=\"row\">{}</th><td colspan=\"2\">{}</td></tr>\n", what_html, text_html);
}

std::string fixed(double v, int decimals) {
  if (!std::isfinite(v)) return "–";
  return fmt::format("{:.{}f}", v, decimals);
}

std::string percent(double fraction, int decimals) { return fixed(100 * fraction, decimals); }

std::string note_box(const std::string& text_html) { return "<p class=\"note\">" + text_html + "</p>\n"; }

}  // namespace plansim::html
