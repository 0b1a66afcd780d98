// `plansim plot timeline`: the pipeline schedule as it ran, the figure of the pipeline papers. One row
// per stage (stage 0 on top), time on x; a box per schedule slot (the report's `pipeline.slots`): hue by
// micro-batch, shade by phase (F light, B full, W dark and hatched), the micro-batch written inside
// where it fits with one prime per chunk above 0 ("3'" = micro-batch 3 on the stage's second chunk),
// whose boxes are also outlined heavier.
// DualPipe's paired F&B slots share their time: F fills the row's upper half, B the lower. Beneath each
// stage, thin lanes hold the stage rank's transfers per dimension (from `ops`, merged where closer than
// a pixel) and its optimizer step is a grey box in the row.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>

#include "sim/advise/plan_pictures.hpp"
#include "sim/advise/run_report_node.hpp"

namespace plansim::advise {

namespace {

// Tableau 10 (Tableau's default categorical palette): hue of micro-batch mb is kHues[mb % 10].
constexpr std::array<uint32_t, 10> kHues{0x4e79a7, 0xf28e2b, 0x59a14f, 0xe15759, 0xb07aa1,
                                         0x76b7b2, 0xedc948, 0xff9da7, 0x9c755f, 0xbab0ac};
constexpr std::array<const char*, 5> kDims{"tp", "cp", "ep", "dp", "pp"};
constexpr std::array<const char*, 5> kLaneNames{"TP", "CP", "EP", "DP", "PP"};
constexpr std::array<const char*, 5> kDimColors{"#8e44ad", "#8c564b", "#e67e22", "#c0392b", "#17becf"};
constexpr std::array<const char*, 5> kDimTitles{"TP collectives", "CP collectives", "EP all-to-all",
                                                "DP collectives", "PP send/recv"};

// Canvas geometry (SVG pixels): the plot area is about the canvas less these margins.
constexpr int kWidth = 1400;
constexpr int kMarginX = 170, kMarginY = 150;
constexpr double kRowPixels = 46;  // one compute row
constexpr double kCharPixels = 7;  // a label character at the box font (10 pt)
constexpr double kLane = 0.24, kLaneGap = 0.06, kStageGap = 0.45;

uint32_t mix(uint32_t rgb, uint32_t with, double f) {
  uint32_t out = 0;
  for (int sh = 0; sh <= 16; sh += 8) {
    const double a = (rgb >> sh) & 0xff, b = (with >> sh) & 0xff;
    out |= static_cast<uint32_t>(std::lround(a + (b - a) * f)) << sh;
  }
  return out;
}
uint32_t shade(int mb, char phase) {
  const uint32_t hue = kHues[static_cast<size_t>(mb) % kHues.size()];
  return phase == 'F' ? mix(hue, 0xffffff, 0.55) : phase == 'B' ? hue : mix(hue, 0x000000, 0.45);
}
bool dark(uint32_t rgb) {
  const double lum = 0.299 * ((rgb >> 16) & 0xff) + 0.587 * ((rgb >> 8) & 0xff) + 0.114 * (rgb & 0xff);
  return lum < 150;
}

struct Box {
  int stage = 0;
  char phase = 'F';
  int mb = 0;
  int chunk = 0;
  double start = 0, end = 0;
  int half = 0;  // 0 the whole row, 1 its upper half, 2 its lower half (a paired F&B)
};

std::vector<Box> read_slots(const YAML::Node& pipeline, int stages) {
  std::vector<Box> boxes;
  for (const YAML::Node& s : report_list(pipeline, "slots")) {
    Box b;
    b.stage = report_int(s, "stage");
    const std::string ph = report_string(s, "phase");
    if (ph != "F" && ph != "B" && ph != "W") report_error(s, "a slot's phase must be F, B or W");
    b.phase = ph[0];
    b.mb = report_int(s, "micro_batch");
    b.chunk = report_int(s, "chunk");
    b.start = report_number(s, "start_s");
    b.end = report_number(s, "end_s");
    if (b.stage < 0 || b.stage >= stages || b.mb < 0 || b.chunk < 0 || b.end < b.start)
      report_error(s, "a slot out of range (stage, micro_batch, chunk or times)");
    boxes.push_back(b);
  }
  // Slots of one stage that overlap in time ran as a pair (DualPipe's F&B): F above, B below.
  std::stable_sort(boxes.begin(), boxes.end(),
                   [](const Box& a, const Box& b) { return a.stage != b.stage ? a.stage < b.stage : a.start < b.start; });
  for (size_t i = 0; i + 1 < boxes.size(); ++i) {
    Box &a = boxes[i], &b = boxes[i + 1];
    const double overlap = std::min(a.end, b.end) - std::max(a.start, b.start);
    if (a.stage == b.stage && overlap > 0.5 * std::min(a.end - a.start, b.end - b.start)) {
      a.half = a.phase == 'F' ? 1 : 2;
      b.half = a.half == 1 ? 2 : 1;
    }
  }
  return boxes;
}

struct Bar {
  double start, end;
};

// Per stage and dimension: the stage rank's transfers, merged where the gap is under `tol`; and per
// stage its optimizer step(s).
struct StageComm {
  std::array<std::vector<Bar>, 5> dims;
  std::vector<Bar> optimizer;
};
std::vector<StageComm> read_comm(const YAML::Node& report, const std::vector<int64_t>& stage_rank, double tol) {
  std::vector<StageComm> out(stage_rank.size());
  std::map<int64_t, size_t> stage_of;
  for (size_t s = 0; s < stage_rank.size(); ++s) stage_of.emplace(stage_rank[s], s);
  for (const YAML::Node& op : report_list(report, "ops", true)) {
    const auto it = stage_of.find(report_int(op, "rank"));
    if (it == stage_of.end()) continue;
    const std::string name = report_string(op, "name"), cls = report_string(op, "class");
    const double start = report_number(op, "start_s"), end = start + report_number(op, "duration_s");
    StageComm& sc = out[it->second];
    if (cls == "p2p") {
      sc.dims[4].push_back({start, end});
    } else if (cls == "collective") {
      for (size_t d = 0; d < kDims.size(); ++d)
        if (name.rfind(std::string(kDims[d]) + "_", 0) == 0) sc.dims[d].push_back({start, end});
    } else if (name.rfind("optimizer", 0) == 0) {
      sc.optimizer.push_back({start, end});
    }
  }
  for (StageComm& sc : out)
    for (auto& bars : sc.dims) {
      std::sort(bars.begin(), bars.end(), [](const Bar& a, const Bar& b) { return a.start < b.start; });
      std::vector<Bar> merged;
      for (const Bar& b : bars) {
        if (!merged.empty() && b.start <= merged.back().end + tol) merged.back().end = std::max(merged.back().end, b.end);
        else merged.push_back(b);
      }
      bars = std::move(merged);
    }
  return out;
}

std::string primes(int chunk) { return std::string(static_cast<size_t>(chunk), '\''); }

}  // namespace

PlotSpec plot_timeline(const YAML::Node& report) {
  const YAML::Node pipeline = report_field(report, "pipeline");
  const YAML::Node stage_list = report_list(report, "stages");
  const int stages = static_cast<int>(stage_list.size());
  if (stages == 0) report_error(stage_list, "the report has no stages");
  std::vector<int64_t> stage_rank(static_cast<size_t>(stages), -1);
  for (const YAML::Node& st : stage_list) {
    const int s = report_int(st, "stage");
    if (s < 0 || s >= stages) report_error(st, "a stage number out of range");
    stage_rank[static_cast<size_t>(s)] = report_int(st, "rank");
  }
  const double iteration = report_number(report, "iteration_time_s");
  if (!(iteration > 0)) report_error(report["iteration_time_s"], "the iteration time must be positive");
  const std::vector<Box> boxes = read_slots(pipeline, stages);
  if (boxes.empty()) report_error(pipeline, "the report has no schedule slots");
  const double px_per_s = (kWidth - kMarginX) / iteration;
  const auto comm = read_comm(report, stage_rank, 1.0 / px_per_s);
  const bool has_ops = report.IsMap() && report["ops"].IsDefined() && report["ops"].size() > 0;
  std::vector<size_t> lanes;  // the dimensions with any transfer on any stage rank
  for (size_t d = 0; d < kDims.size(); ++d)
    for (const StageComm& sc : comm)
      if (!sc.dims[d].empty() && std::find(lanes.begin(), lanes.end(), d) == lanes.end()) lanes.push_back(d);
  std::sort(lanes.begin(), lanes.end(), [](size_t a, size_t b) { return a > b; });  // PP first, under the row
  const double lane_block = lanes.empty() ? 0 : 0.1 + static_cast<double>(lanes.size()) * (kLane + kLaneGap);
  const double pitch = 1 + lane_block + kStageGap;  // y units per stage; y grows downwards
  const double y_total = stages * pitch - kStageGap;
  const int height = std::clamp(static_cast<int>(kMarginY + kRowPixels * y_total), 320, 2400);
  const double px_per_y = (height - kMarginY) / y_total;
  const double ms = 1e3;

  PlotSpec p;
  const std::string schedule = report_string(pipeline, "schedule");
  const int chunks = report_int(pipeline, "chunks");
  p.title = fmt::format("{} schedule, {} stage{} x {} micro-batches{}: {}{}", schedule, stages, stages > 1 ? "s" : "",
                        report_int(report, "micro_batches"), chunks > 1 ? fmt::format(", {} chunks per stage", chunks) : "",
                        report_string(report, "name"), has_ops ? "" : " (no per-op records: transfers not shown)");
  p.xlabel = "time (ms)";
  p.ylabel = "";
  p.width = kWidth;
  p.height = height;
  // Blocks: 0 F, 1 B, 2 W boxes (x1,x2,y1,y2,rgb); 3 labels on light boxes, 4 on dark ones (x,y,text);
  // 5 the outlines of boxes on a chunk above 0 (x1,x2,y1,y2); 6.. one block per lane dimension
  // (x1,x2,y1,y2); then the optimizer boxes.
  std::array<std::string, 6> text;
  for (const Box& b : boxes) {
    const double y0 = b.stage * pitch + (b.half == 2 ? 0.5 : 0), y1 = b.stage * pitch + (b.half == 1 ? 0.5 : 1);
    const uint32_t rgb = shade(b.mb, b.phase);
    const size_t block = b.phase == 'F' ? 0 : b.phase == 'B' ? 1 : 2;
    text[block] += fmt::format("{},{},{},{},{}\n", b.start * ms, b.end * ms, y0, y1, rgb);
    if (b.chunk > 0) text[5] += fmt::format("{},{},{},{}\n", b.start * ms, b.end * ms, y0, y1);
    const std::string label = fmt::format("{}{}", b.mb, primes(b.chunk));
    const double w_px = (b.end - b.start) * px_per_s, h_px = (y1 - y0) * px_per_y;
    if (w_px >= kCharPixels * static_cast<double>(label.size()) + 4 && h_px >= 13)
      text[dark(rgb) ? 4 : 3] += fmt::format("{},{},{}\n", (b.start + b.end) / 2 * ms, (y0 + y1) / 2, label);
  }
  for (auto& t : text) p.blocks.push_back(t.empty() ? "NaN,NaN,NaN,NaN,0\n" : t);
  constexpr size_t kFirstLane = 6;
  std::string opt;
  for (size_t k = 0; k < lanes.size(); ++k) {
    std::string t;
    for (int s = 0; s < stages; ++s) {
      const double y0 = s * pitch + 1 + 0.1 + static_cast<double>(k) * (kLane + kLaneGap);
      for (const Bar& b : comm[static_cast<size_t>(s)].dims[lanes[k]])
        t += fmt::format("{},{},{},{}\n", b.start * ms, b.end * ms, y0, y0 + kLane);
    }
    p.blocks.push_back(t.empty() ? "NaN,NaN,NaN,NaN\n" : t);
  }
  for (int s = 0; s < stages; ++s)
    for (const Bar& b : comm[static_cast<size_t>(s)].optimizer)
      opt += fmt::format("{},{},{},{}\n", b.start * ms, b.end * ms, s * pitch, s * pitch + 1);
  p.blocks.push_back(opt.empty() ? "NaN,NaN,NaN,NaN\n" : opt);

  // Axes: stage rows and lane names as y tics, a light band behind each row so bubbles read as gaps.
  std::string tics;
  std::string setup = fmt::format("set xrange [0:{}]\nset yrange [{}:{}]\n", iteration * ms, y_total + 0.15, -0.15);
  for (int s = 0; s < stages; ++s) {
    tics += fmt::format("{}'stage {}' {}", s ? ", " : "", s, s * pitch + 0.5);
    for (size_t k = 0; k < lanes.size(); ++k)
      tics += fmt::format(", '{}' {}", kLaneNames[lanes[k]],
                          s * pitch + 1 + 0.1 + static_cast<double>(k) * (kLane + kLaneGap) + kLane / 2);
    setup += fmt::format("set object rect from graph 0, first {} to graph 1, first {} behind fc rgb '#f1f1f1' "
                         "fs solid 1.0 noborder\n",
                         s * pitch, s * pitch + 1);
  }
  setup += "set ytics (" + tics + ") scale 0\n";
  setup += "unset grid\nset grid xtics lc rgb '#dddddd' back\nset xtics out nomirror\nset border 1\n";
  setup += "set key at screen 0.5, screen 0.005 center bottom horizontal maxrows 2 samplen 1.5 width 1 font ',11'\n"
           "set bmargin 6\n";
  setup += "set style fill solid 1.0 border lc rgb '#555555'\n";
  p.setup = setup;

  const std::string fill = "with boxxyerror lc rgb variable";
  std::string body;
  body += "DATA index 0 using (($1+$2)/2):(($3+$4)/2):1:2:3:4:5 " + fill + " notitle";
  body += ", DATA index 1 using (($1+$2)/2):(($3+$4)/2):1:2:3:4:5 " + fill + " notitle";
  body += ", DATA index 2 using (($1+$2)/2):(($3+$4)/2):1:2:3:4:5 " + fill + " notitle";
  // W: hatched over its dark shade.
  body += ", DATA index 2 using (($1+$2)/2):(($3+$4)/2):1:2:3:4 with boxxyerror fs transparent pattern 5 "
          "noborder lc rgb '#ffffff' notitle";
  // Chunks above 0: a heavier outline (with the primes of their labels).
  body += ", DATA index 5 using (($1+$2)/2):(($3+$4)/2):1:2:3:4 with boxxyerror fs empty border lc rgb '#000000' "
          "lw 2.5 lc rgb '#000000' notitle";
  body += ", DATA index 3 using 1:2:3 with labels font ',10' tc rgb '#000000' notitle";
  body += ", DATA index 4 using 1:2:3 with labels font ',10' tc rgb '#ffffff' notitle";
  for (size_t k = 0; k < lanes.size(); ++k)
    body += fmt::format(", DATA index {} using (($1+$2)/2):(($3+$4)/2):1:2:3:4 with boxxyerror fs solid 1.0 noborder "
                        "lc rgb '{}' title '{}'",
                        kFirstLane + k, kDimColors[lanes[k]], kDimTitles[lanes[k]]);
  body += fmt::format(", DATA index {} using (($1+$2)/2):(($3+$4)/2):1:2:3:4 with boxxyerror fs solid 1.0 "
                      "border lc rgb '#555555' fc rgb '#9e9e9e' notitle",
                      kFirstLane + lanes.size());
  // The legend: phases in micro-batch 0's hue (every micro-batch has its own hue).
  body += fmt::format(", keyentry with boxes fs solid 1.0 fc rgb '#{:06x}' title 'F forward (hue: micro-batch)'",
                      shade(0, 'F'));
  body += fmt::format(", keyentry with boxes fs solid 1.0 fc rgb '#{:06x}' title 'B backward{}'", shade(0, 'B'),
                      std::any_of(boxes.begin(), boxes.end(), [](const Box& b) { return b.phase == 'W'; })
                          ? " (input gradient)"
                          : "");
  if (std::any_of(boxes.begin(), boxes.end(), [](const Box& b) { return b.phase == 'W'; }))
    body += fmt::format(", keyentry with boxes fs solid 1.0 fc rgb '#{:06x}' title 'W weight gradient'", shade(0, 'W'));
  if (!opt.empty()) body += ", keyentry with boxes fs solid 1.0 fc rgb '#9e9e9e' title 'optimizer step'";
  if (chunks > 1)
    body += ", keyentry with boxes fs empty border lc rgb '#000000' lw 2.5 lc rgb '#000000' title \"chunk 1, 2 ...: outlined, n', n'' ...\"";
  p.plot = body;
  return p;
}

}  // namespace plansim::advise
