#include "hw/bench_spec.hpp"

#include <charconv>
#include <string>
#include <stdexcept>

#include <fmt/format.h>

namespace plansim::hw {

const std::vector<NcclOp>& all_nccl_ops() {
  static const std::vector<NcclOp> ops = {NcclOp::kAllReduce, NcclOp::kAllGather, NcclOp::kReduceScatter,
                                          NcclOp::kBroadcast, NcclOp::kReduce,    NcclOp::kAllToAll,
                                          NcclOp::kSendRecv};
  return ops;
}

std::string_view op_name(NcclOp op) {
  switch (op) {
    case NcclOp::kAllReduce: return "all_reduce";
    case NcclOp::kAllGather: return "all_gather";
    case NcclOp::kReduceScatter: return "reduce_scatter";
    case NcclOp::kBroadcast: return "broadcast";
    case NcclOp::kReduce: return "reduce";
    case NcclOp::kAllToAll: return "all_to_all";
    case NcclOp::kSendRecv: return "send_recv";
  }
  return "?";
}

std::optional<NcclOp> parse_op(std::string_view name) {
  for (NcclOp op : all_nccl_ops())
    if (op_name(op) == name) return op;
  return std::nullopt;
}

double busbw_factor(NcclOp op, int nranks) {
  const double n = nranks;
  switch (op) {
    case NcclOp::kAllReduce: return 2.0 * (n - 1.0) / n;
    case NcclOp::kAllGather:
    case NcclOp::kReduceScatter:
    case NcclOp::kAllToAll: return (n - 1.0) / n;
    case NcclOp::kBroadcast:
    case NcclOp::kReduce:
    case NcclOp::kSendRecv: return 1.0;
  }
  return 1.0;
}

bool has_in_place(NcclOp op) { return op != NcclOp::kAllToAll && op != NcclOp::kSendRecv; }

OpCounts op_counts(NcclOp op, std::size_t size_bytes, std::size_t elem_bytes, int nranks) {
  const auto n = static_cast<std::size_t>(nranks);
  const std::size_t count = size_bytes / elem_bytes;
  switch (op) {
    case NcclOp::kAllGather: {
      const std::size_t per = count / n;
      return {per * n, per, per * n};
    }
    case NcclOp::kReduceScatter: {
      const std::size_t per = count / n;
      return {per * n, per * n, per};
    }
    case NcclOp::kAllToAll: {
      const std::size_t per = count / n;
      return {per * n, per * n, per * n};
    }
    default: return {count, count, count};
  }
}

std::optional<double> spec_sm_clock_hz(int cc, int sm_count) {
  struct Spec {
    int cc, sms;
    double mhz;
  };
  static constexpr Spec kSpecs[] = {{80, 108, 1410}, {90, 132, 1830}, {90, 114, 1620}, {89, 142, 2520}, {89, 58, 2040}};
  for (const Spec& s : kSpecs)
    if (s.cc == cc && s.sms == sm_count) return s.mhz * 1e6;
  return std::nullopt;
}

double flops_per_clock_per_sm(int cc, const std::string& dtype) {
  if (dtype == "bf16" || dtype == "fp16") return cc == 80 ? 2048 : cc == 89 ? 1024 : cc == 90 ? 4096 : 0;
  if (dtype == "tf32") return cc == 80 ? 1024 : cc == 89 ? 512 : cc == 90 ? 2048 : 0;
  if (dtype == "fp8") return cc == 89 ? 2048 : cc == 90 ? 8192 : 0;
  if (dtype == "fp32") return cc == 80 ? 128 : cc == 89 ? 256 : cc == 90 ? 256 : 0;
  return 0;
}

std::size_t parse_size(std::string_view text) {
  if (text.empty()) throw std::invalid_argument("empty size");
  std::size_t multiplier = 1;
  const char last = text.back();
  if (last == 'K' || last == 'k') multiplier = 1024;
  if (last == 'M' || last == 'm') multiplier = 1024 * 1024;
  if (last == 'G' || last == 'g') multiplier = 1024 * 1024 * 1024;
  if (multiplier != 1) text.remove_suffix(1);
  std::size_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size())
    throw std::invalid_argument(fmt::format("'{}' is not a size (an integer with an optional K, M or G suffix)", text));
  // A GPU buffer holds at most 2^40 bytes here; larger values (or ones that overflow) are typos.
  constexpr std::size_t kMaxSize = std::size_t{1} << 40;
  if (value > kMaxSize / multiplier)
    throw std::invalid_argument(fmt::format("size '{}{}' is above the largest supported size, 1024G", text,
                                            multiplier == 1 ? "" : std::string(1, last)));
  return value * multiplier;
}

std::vector<std::size_t> size_sweep(std::size_t min_bytes, std::size_t max_bytes, std::size_t factor) {
  if (min_bytes == 0) throw std::invalid_argument("the minimum size must be positive");
  if (max_bytes < min_bytes) throw std::invalid_argument("the maximum size is below the minimum");
  if (factor < 2 && min_bytes != max_bytes) throw std::invalid_argument("the step factor must be at least 2");
  std::vector<std::size_t> sizes;
  for (std::size_t s = min_bytes; s <= max_bytes; s *= factor) {
    sizes.push_back(s);
    if (factor < 2 || s > max_bytes / factor) break;  // the next step would pass max (or overflow)
  }
  return sizes;
}

Bandwidth bandwidth(NcclOp op, std::size_t size_bytes, double seconds, int nranks) {
  const double algbw = static_cast<double>(size_bytes) / seconds;
  return {algbw, algbw * busbw_factor(op, nranks)};
}

std::vector<GemmShape> parse_shapes(std::string_view list) {
  std::vector<GemmShape> shapes;
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    const std::string_view item = list.substr(0, comma);
    std::int64_t dims[3] = {0, 0, 0};
    std::string_view rest = item;
    for (int d = 0; d < 3; ++d) {
      const std::size_t x = rest.find('x');
      if ((d < 2) == (x == std::string_view::npos))
        throw std::invalid_argument(fmt::format("'{}' is not a shape MxNxK", item));
      const std::string_view part = rest.substr(0, x);
      const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), dims[d]);
      if (ec != std::errc() || end != part.data() + part.size() || dims[d] <= 0)
        throw std::invalid_argument(fmt::format("'{}' is not a shape MxNxK of positive integers", item));
      rest = d < 2 ? rest.substr(x + 1) : std::string_view{};
    }
    shapes.push_back({dims[0], dims[1], dims[2]});
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  if (shapes.empty()) throw std::invalid_argument("no GEMM shapes given");
  return shapes;
}

std::vector<GemmShape> default_gemm_shapes() {
  // M = tokens per micro-batch (e.g. 4 x 2048 = 8192 or 2 x 4096), N x K the weight of one projection.
  // GPT-3 2.7B (h 2560), LLaMA-2 7B (h 4096, ffn 11008), LLaMA-2 13B (h 5120, ffn 13824), LLaMA-2 70B with
  // TP 8 (h 8192, ffn 28672 / 8 = 3584, qkv (8192 + 2*1024) / 8 = 1280): QKV, attention output, MLP up, down.
  return {
      {8192, 7680, 2560},  {8192, 2560, 2560},  {8192, 10240, 2560}, {8192, 2560, 10240},  // GPT-3 2.7B
      {8192, 12288, 4096}, {8192, 4096, 4096},  {8192, 22016, 4096}, {8192, 4096, 11008},  // LLaMA-2 7B
      {8192, 15360, 5120}, {8192, 5120, 5120},  {8192, 27648, 5120}, {8192, 5120, 13824},  // LLaMA-2 13B
      {8192, 1280, 8192},  {8192, 8192, 1024},  {8192, 7168, 8192},  {8192, 8192, 3584},   // LLaMA-2 70B, TP 8
      {1024, 1024, 1024},  {2048, 2048, 2048},  {4096, 4096, 4096},  {16384, 16384, 16384},  // square sweep
  };
}

}  // namespace plansim::hw
