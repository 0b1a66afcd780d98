// Scenario YAML -> Scenario (+ Topology). Every rejection is a ConfigError at the value's position.
#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "sim/io/compute_yaml.hpp"
#include "sim/io/finetune_yaml.hpp"
#include "sim/io/scenario_calibration.hpp"
#include "sim/io/scenario_gpus.hpp"
#include "sim/core/limits.hpp"
#include "sim/io/scenario_loader.hpp"
#include "sim/io/scenario_topology.hpp"
#include "sim/io/yaml_reader.hpp"
#include "sim/sched/registry.hpp"

namespace plansim {
namespace {

using io::MapReader;
using io::YamlFile;
namespace lim = limits;

const std::vector<std::string>& key_paths() {
  static const std::vector<std::string> paths = {
      "name", "topology", "nodes", "servers_per_domain", "gpus", "calibration",
      "model.layers", "model.hidden", "model.heads", "model.kv_heads", "model.head_dim", "model.ffn_hidden", "model.vocab",
      "model.seq_len", "model.dtype", "model.fp8_scaling", "model.gated_mlp", "model.bias", "model.learned_positions",
      "model.tied_embeddings", "model.dropout", "model.moe", "model.moe.experts", "model.moe.top_k", "model.moe.expert_ffn_hidden",
      "model.moe.every", "model.moe.capacity_factor", "model.attention", "model.attention.mask", "model.attention.window", "model.attention.window_every", "model.attention.bias",
      "parallel.tp", "parallel.pp", "parallel.dp", "parallel.cp", "parallel.ep", "parallel.expert_tp", "parallel.ep_dispatcher", "parallel.sequence_parallel",
      "parallel.zero", "parallel.order", "parallel.stage_layers", "parallel.pipeline_split",
      "parallel.pipeline_split.embedding", "parallel.pipeline_split.loss",
      "schedule.kind", "schedule.virtual_stages", "schedule.moe_a2a_overlap",
      "training.global_batch", "training.micro_batch", "training.recompute", "training.attention", "training.grad_bucket",
      "training.overlap", "training.overlap.grad_reduce", "training.overlap.param_gather",
      "training.overlap.tp_comm", "training.weight_bytes", "training.grad_bytes", "training.optimizer_bytes",
      "training.finetune", "training.finetune.method", "training.finetune.rank", "training.finetune.alpha",
      "training.finetune.targets", "training.finetune.frozen_layers", "training.activation_offload_layers",
      "compute.matmul_tflops", "compute.mamf_shape", "compute.sm_count", "compute.gemm_tile_k_bytes",
      "compute.gemm_tile_latency", "compute.gemm_feed_ratio", "compute.sustained_factor", "compute.fp8_gemm_factor",
      "compute.grouped_gemm_efficiency", "compute.moe_load_imbalance", "compute.attention_efficiency", "compute.flash2_attention_efficiency", "compute.alibi_attention_efficiency",
      "compute.hbm_efficiency", "compute.launch_overhead", "compute.expert_launch_overhead", "compute.comm_slowdown", "compute.softmax_exp_cost"};
  return paths;
}

// "a.b.c=value": sets root[a][b][c] = YAML of value (so lists and mappings work), creating mappings.
void apply_override(YamlFile& file, YAML::Node root, const std::string& text) {
  const SourcePos where{"--set " + text, 0, 0};
  auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0) throw ConfigError(where, "an override must look like key.path=value");
  const std::string path = text.substr(0, eq);
  const auto& known = key_paths();
  if (std::find(known.begin(), known.end(), path) == known.end()) {
    std::string msg = fmt::format("unknown key '{}'", path);
    if (auto s = io::did_you_mean(path, known)) msg += fmt::format(" (did you mean '{}'?)", *s);
    throw ConfigError(where, msg);
  }
  if (!root.IsMap()) file.fail(root, "the scenario must be a mapping of keys to values");
  YAML::Node value = io::parse_value(text.substr(eq + 1), where.file);
  std::vector<std::string> parts;
  for (size_t start = 0;;) {
    size_t dot = path.find('.', start);
    parts.push_back(path.substr(start, dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  std::vector<YAML::Node> chain{root};
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    YAML::Node next = chain.back()[parts[i]];
    if (!next.IsDefined() || next.IsNull()) chain.back()[parts[i]] = YAML::Node(YAML::NodeType::Map);
    else if (!next.IsMap()) throw ConfigError(where, fmt::format("'{}' is not a mapping in the scenario", parts[i]));
    chain.push_back(chain.back()[parts[i]]);
  }
  chain.back()[parts.back()] = value;
  file.add_foreign(chain.back()[parts.back()], "--set " + text);
}

bool flag(MapReader& m, const std::string& key, bool fallback) { return m.optional<bool>(key, fallback); }

// A count from 1 to its cap (README "Limits").
int64_t positive_i64(MapReader& m, const std::string& key, int64_t cap) { return m.integer(key, {1, cap}); }

// Bytes per parameter: (0, 64].
double per_param_bytes_or(MapReader& m, const std::string& key, double fallback) {
  return m.real_or(key, {0, 64, true}, fallback);
}

ModelSpec read_model(const YamlFile& f, const YAML::Node& n) {
  MapReader m(f, n, "model");
  ModelSpec s;
  s.layers = m.positive_int("layers", lim::kMaxLayers);
  s.hidden = positive_i64(m, "hidden", lim::kMaxHidden);
  s.heads = m.positive_int("heads", lim::kMaxHeads);
  s.kv_heads = m.positive_int_or("kv_heads", s.heads, lim::kMaxHeads);
  if (m.has("head_dim")) s.head_dim_override = positive_i64(m, "head_dim", lim::kMaxHidden);
  s.ffn_hidden = m.has("ffn_hidden") ? positive_i64(m, "ffn_hidden", lim::kMaxFfnHidden) : 4 * s.hidden;
  s.vocab = positive_i64(m, "vocab", lim::kMaxVocab);
  s.seq_len = positive_i64(m, "seq_len", lim::kMaxSeqLen);
  std::string dt = m.choice_or("dtype", {"bf16", "fp16", "fp8", "fp32"}, "bf16");
  s.dtype = *dtype_from_string(dt);
  s.fp8_scaling = *fp8_scaling_from_string(m.choice_or("fp8_scaling", {"delayed", "tensorwise", "rowwise"}, "delayed"));
  s.gated_mlp = flag(m, "gated_mlp", false);
  s.bias = flag(m, "bias", false);
  s.learned_positions = flag(m, "learned_positions", false);
  s.tied_embeddings = flag(m, "tied_embeddings", false);
  s.dropout = flag(m, "dropout", false);
  if (m.has("attention")) {
    MapReader a(f, m.get("attention"), "model.attention");
    s.attention.causal = a.choice_or("mask", {"causal", "full"}, "causal") == "causal";
    if (a.has("window")) {
      s.attention.window = positive_i64(a, "window", lim::kMaxSeqLen);
      if (!s.attention.causal) f.fail(a.require("window"), "a sliding 'window' needs mask: causal");
    }
    if (a.has("window_every")) {
      s.attention.window_every = a.positive_int("window_every", lim::kMaxLayers);
      if (!a.has("window")) f.fail(a.require("window_every"), "'window_every' needs a 'window'");
    }
    s.attention.alibi = a.choice_or("bias", {"none", "alibi"}, "none") == "alibi";
    a.finish();
  }
  if (s.head_dim_override == 0 && s.hidden % s.heads != 0) f.fail(m.require("hidden"), fmt::format("hidden {} is not divisible by heads {} (set model.head_dim)", s.hidden, s.heads));
  if (s.heads % s.kv_heads != 0)
    f.fail(m.require("kv_heads"), fmt::format("heads {} is not divisible by kv_heads {}", s.heads, s.kv_heads));
  if (m.has("moe")) {
    MapReader e(f, m.get("moe"), "model.moe");
    MoeSpec moe;
    moe.experts = e.positive_int("experts", lim::kMaxExperts);
    moe.top_k = e.positive_int_or("top_k", 1, lim::kMaxExperts);
    moe.expert_ffn_hidden =
        e.has("expert_ffn_hidden") ? positive_i64(e, "expert_ffn_hidden", lim::kMaxFfnHidden) : s.ffn_hidden;
    moe.every = e.positive_int_or("every", 1, lim::kMaxLayers);
    if (e.has("capacity_factor")) moe.capacity_factor = e.real("capacity_factor", {0, 1000, true});
    if (moe.top_k > moe.experts) f.fail(e.require("top_k"), "top_k cannot exceed the number of experts");
    e.finish();
    s.moe = moe;
  }
  m.finish();
  return s;
}

ParallelSpec read_parallel(const YamlFile& f, const YAML::Node& n) {
  MapReader m(f, n, "parallel");
  ParallelSpec p;
  p.tp = m.positive_int_or("tp", 1, lim::kMaxGpus);
  p.pp = m.positive_int_or("pp", 1, lim::kMaxGpus);
  p.dp = m.positive_int_or("dp", 1, lim::kMaxGpus);
  p.cp = m.positive_int_or("cp", 1, lim::kMaxGpus);
  p.ep = m.positive_int_or("ep", 1, lim::kMaxGpus);
  if (m.has("expert_tp")) p.expert_tp = m.positive_int_or("expert_tp", 1, lim::kMaxGpus);
  // tp·pp·dp·cp in int64, one factor at a time (each ≤ the cap, so no step overflows): world() is an int.
  int64_t world = 1;
  for (int64_t d : {p.tp, p.pp, p.dp, p.cp})
    if ((world *= d) > lim::kMaxGpus)
      f.fail(n, fmt::format("tp·pp·dp·cp = {}·{}·{}·{} is more than {} GPUs, the cap (README 'Limits')", p.tp, p.pp,
                            p.dp, p.cp, io::with_commas(lim::kMaxGpus)));
  p.sequence_parallel = flag(m, "sequence_parallel", false);
  if (m.choice_or("ep_dispatcher", {"alltoall", "hierarchical"}, "alltoall") == "hierarchical")
    p.ep_dispatcher = ParallelSpec::EpDispatcher::hierarchical;
  if (m.has("zero")) {
    YAML::Node z = m.get("zero");
    p.zero = m.required<int>("zero");
    if (p.zero < 0 || p.zero > 3) f.fail(z, fmt::format("'zero' must be 0, 1, 2 or 3, got {}", p.zero));
  }
  if (m.has("order")) {
    YAML::Node o = m.get("order");
    if (!o.IsSequence() || o.size() != 5)
      f.fail(o, "'order' must list the five dimensions tp, cp, ep, dp, pp, innermost first");
    std::vector<Dim> seen;
    for (size_t i = 0; i < 5; ++i) {
      const std::string word = o[i].IsScalar() ? o[i].Scalar() : std::string();
      Dim dim = Dim::tp;
      if (auto parsed = dim_from_string(word)) dim = *parsed;
      else f.fail(o[i], "'order' entries must be tp, cp, ep, dp or pp");
      if (std::find(seen.begin(), seen.end(), dim) != seen.end())
        f.fail(o[i], fmt::format("'{}' appears twice in 'order'", to_string(dim)));
      seen.push_back(dim);
      p.order[i] = dim;
    }
  }
  if (m.has("stage_layers")) {
    YAML::Node sl = m.get("stage_layers");
    if (!sl.IsSequence() || sl.size() == 0)
      f.fail(sl, "'stage_layers' must list the layer count of every virtual pipeline stage, e.g. [5, 6, 6, 5]");
    if (sl.size() > static_cast<size_t>(lim::kMaxLayers))
      f.fail(sl, fmt::format("'stage_layers' lists more than {} stages, the cap on layers", lim::kMaxLayers));
    for (size_t i = 0; i < sl.size(); ++i) {  // each ≤ the layer cap, so their sum fits an int
      // The first and last pieces also hold the embedding / the loss, so they may hold no layer.
      const bool end = i == 0 || i + 1 == sl.size();
      const int v = static_cast<int>(io::scalar_integer(f, sl[i], "stage_layers", {0, lim::kMaxLayers}));
      if (v == 0 && !end)
        f.fail(sl[i], "'stage_layers' entries must be positive integers (0 allowed for the first and last)");
      p.stage_layers.push_back(v);
    }
  }
  if (m.has("pipeline_split")) {
    MapReader ps(f, m.get("pipeline_split"), "parallel.pipeline_split");
    p.split_embedding = flag(ps, "embedding", false);
    p.split_loss = flag(ps, "loss", false);
    ps.finish();
  }
  if (p.expert_tp > 0 && p.expert_tp != 1 && p.expert_tp != p.tp)
    f.fail(m.require("expert_tp"), fmt::format("expert_tp must be 1 (MoE parallel folding) or tp ({}), got {}: other "
                                               "widths are not modelled", p.tp, p.expert_tp));
  if (!p.experts_folded() && p.dp % p.ep != 0) {  // folded: check_consistency, once the model is known
    f.fail(m.require("ep"), fmt::format("ep {} must divide dp {} (EP lives inside DP; with tp > 1, expert_tp: 1 folds "
                                        "EP over tp·cp·dp)", p.ep, p.dp));
  }
  if (p.sequence_parallel && p.tp == 1) f.fail(m.require("sequence_parallel"), "sequence_parallel needs tp > 1");
  m.finish();
  return p;
}

ScheduleSpec read_schedule(const YamlFile& f, const YAML::Node& n) {
  MapReader m(f, n, "schedule");
  ScheduleSpec s;
  s.kind = m.choice_or("kind", schedule_names(), "1f1b");
  s.virtual_stages = m.positive_int_or("virtual_stages", 1, lim::kMaxVirtualStages);
  if (s.virtual_stages > 1 && s.kind != "interleaved")
    f.fail(m.require("virtual_stages"), "virtual_stages > 1 needs kind: interleaved");
  s.moe_a2a_overlap = flag(m, "moe_a2a_overlap", false);
  m.finish();
  return s;
}

TrainingSpec read_training(const YamlFile& f, const YAML::Node& n, DType dtype) {
  MapReader m(f, n, "training");
  TrainingSpec t;
  t.global_batch = positive_i64(m, "global_batch", lim::kMaxGlobalBatch);
  t.micro_batch = m.positive_int_or("micro_batch", 1, lim::kMaxMicroBatch);
  std::string rc = m.choice_or("recompute", {"none", "selective", "selective_op", "full"}, "none");
  t.recompute = rc == "full"           ? Recompute::full
                : rc == "selective"    ? Recompute::selective
                : rc == "selective_op" ? Recompute::selective_op
                                       : Recompute::none;
  const std::string attention = m.choice_or("attention", {"flash", "flash2", "materialised"}, "flash");
  t.attention = attention == "materialised" ? AttentionKernel::materialised
                : attention == "flash2"     ? AttentionKernel::flash2
                                            : AttentionKernel::flash;
  // torchtitan's per-op policy saves a flash SDPA kernel's output; 2021 Megatron's materialised scores
  // are not in its list (op_sac_recompute).
  if (t.recompute == Recompute::selective_op && t.attention == AttentionKernel::materialised)
    m.fail(m.get("attention"), "'training.attention: materialised' cannot run under 'recompute: selective_op' "
                               "(torchtitan's per-op checkpointing saves a flash SDPA kernel's output); use flash or flash2");
  t.grad_bucket = m.bytes_or("grad_bucket", MiB(25));
  if (m.has("overlap")) {
    MapReader o(f, m.get("overlap"), "training.overlap");
    t.overlap.grad_reduce = flag(o, "grad_reduce", true);
    t.overlap.param_gather = flag(o, "param_gather", true);
    t.overlap.tp_comm = flag(o, "tp_comm", false);
    o.finish();
  }
  t.weight_bytes = per_param_bytes_or(m, "weight_bytes", dtype_size(dtype).value());
  t.grad_bytes = per_param_bytes_or(m, "grad_bytes", dtype_size(dtype).value());
  t.optimizer_bytes = m.real_or("optimizer_bytes", {0, 64}, 12.0);
  if (m.has("finetune")) t.finetune = read_finetune(f, m.get("finetune"));
  t.activation_offload_layers = static_cast<int>(m.integer_or("activation_offload_layers", {0, lim::kMaxLayers}, 0));
  // Full recompute: the reload would have to precede the recomputed forward, which the plan does not order.
  if (t.activation_offload_layers > 0 && t.recompute == Recompute::full)
    m.fail(m.get("activation_offload_layers"), "'activation_offload_layers' is modelled with recompute none, "
                                               "selective or selective_op, not full");
  m.finish();
  return t;
}

// Cross-key checks that need several sections (and the topology's GPU count).
void check_consistency(const YamlFile& f, MapReader& root, const Scenario& s, size_t gpus) {
  const auto& p = s.parallel;
  const auto& m = s.model;
  YAML::Node par = root.require("parallel");
  if (static_cast<size_t>(p.world()) > gpus)
    f.fail(par, fmt::format("tp·pp·dp·cp = {}·{}·{}·{} = {} GPUs, but the topology has {} GPUs", p.tp, p.pp, p.dp,
                            p.cp, p.world(), gpus));
  YAML::Node tr = root.require("training");
  YAML::Node mo = root.require("model");
  if (tr.IsMap() && tr["finetune"]) check_finetune(f, tr["finetune"], s);
  const int64_t per_step = static_cast<int64_t>(s.training.micro_batch) * p.dp;
  if (s.training.global_batch % per_step != 0)
    f.fail(tr, fmt::format("global_batch {} is not divisible by micro_batch·dp = {}·{} = {}", s.training.global_batch,
                           s.training.micro_batch, p.dp, per_step));
  if (s.training.global_batch / per_step > lim::kMaxMicroBatches)
    f.fail(tr, fmt::format("{} micro-batches per iteration (global_batch / (micro_batch·dp)) is more than {}, the cap "
                           "(README 'Limits')", s.training.global_batch / per_step, io::with_commas(lim::kMaxMicroBatches)));
  if (s.schedule.moe_a2a_overlap) {  // Megatron-Bridge comm_overlap.py's checks
    YAML::Node flag_node = root.require("schedule")["moe_a2a_overlap"];
    if (!m.moe || p.ep == 1) f.fail(flag_node, "moe_a2a_overlap needs an MoE model with ep > 1");
    if (p.pp > 1 && s.schedule.kind != "interleaved")
      f.fail(flag_node, "moe_a2a_overlap with pp > 1 needs kind: interleaved (Megatron-Core's combined 1F1B)");
    if (p.pp == 1 && s.schedule.kind != "1f1b" && s.schedule.kind != "interleaved")
      f.fail(flag_node, "moe_a2a_overlap needs kind: 1f1b or interleaved");
  }
  const int v = s.schedule.virtual_stages;
  if (!p.stage_layers.empty()) {
    YAML::Node sl = par["stage_layers"];
    if (p.stage_layers.size() != static_cast<size_t>(p.pp * v))
      f.fail(sl, fmt::format("'stage_layers' lists {} stages, but pp·virtual_stages = {}·{} = {}", p.stage_layers.size(),
                             p.pp, v, p.pp * v));
    const int sum = std::accumulate(p.stage_layers.begin(), p.stage_layers.end(), 0);
    if (sum != m.layers) f.fail(sl, fmt::format("'stage_layers' sum to {}, but the model has {} layers", sum, m.layers));
    if (p.split_embedding || p.split_loss)
      f.fail(par["pipeline_split"], "'pipeline_split' applies to the balanced split; with 'stage_layers' count the "
                                    "embedding and loss stages yourself (0 layers allowed first and last)");
  } else if (p.split_embedding || p.split_loss) {
    const int slots = (p.split_embedding ? 1 : 0) + (p.split_loss ? 1 : 0);
    if ((m.layers + slots) % (p.pp * v) != 0)
      f.fail(par["pipeline_split"],
             fmt::format("with 'pipeline_split' the layers plus {} slot{} ({} + {}) must divide over pp·virtual_stages "
                         "= {} (Megatron-Core's rule)",
                         slots, slots > 1 ? "s" : "", m.layers, slots, p.pp * v));
  } else if (m.layers < p.pp * v) {
    f.fail(mo, fmt::format("layers {} is fewer than pp·virtual_stages = {}·{} = {}: every stage needs a layer", m.layers,
                           p.pp, v, p.pp * v));
  }
  if (s.training.activation_offload_layers >= m.layers)
    f.fail(tr["activation_offload_layers"],
           fmt::format("activation_offload_layers {} must be fewer than the model's {} layers (Megatron-Core's "
                       "cpu_offloading_num_layers < num_layers: the last layer's activations are read at once)",
                       s.training.activation_offload_layers, m.layers));
  if (m.heads % p.tp != 0) f.fail(mo, fmt::format("heads {} is not divisible by tp {}", m.heads, p.tp));
  if (m.kv_heads % p.tp != 0 && p.tp % m.kv_heads != 0)
    f.fail(mo, fmt::format("kv_heads {} and tp {}: one must divide the other", m.kv_heads, p.tp));
  if (m.ffn_hidden % p.tp != 0) f.fail(mo, fmt::format("ffn_hidden {} is not divisible by tp {}", m.ffn_hidden, p.tp));
  if (m.vocab % p.tp != 0) f.fail(mo, fmt::format("vocab {} is not divisible by tp {}", m.vocab, p.tp));
  if (m.seq_len % (p.cp * (p.sequence_parallel ? p.tp : 1)) != 0)
    f.fail(mo, fmt::format("seq_len {} is not divisible by cp{}", m.seq_len, p.sequence_parallel ? "·tp" : ""));
  if (p.ep > 1 && (!m.moe || m.moe->experts % p.ep != 0))
    f.fail(par, fmt::format("ep {} needs an MoE model whose expert count it divides", p.ep));
  if (p.expert_tp > 0 && !m.moe) f.fail(par["expert_tp"], "expert_tp needs an MoE model (model.moe)");
  if (p.experts_folded()) {
    if (!p.sequence_parallel)
      f.fail(par["expert_tp"], "expert_tp 1 with tp > 1 needs sequence_parallel: true (each rank dispatches its own "
                               "sequence shard, as Megatron-Core requires for MoE with TP)");
    if ((p.tp * p.cp * p.dp) % p.ep != 0)
      f.fail(par["ep"], fmt::format("ep {} must divide tp·cp·dp = {} (the ranks of a pipeline stage the experts fold "
                                    "over)", p.ep, p.tp * p.cp * p.dp));
  }
  if (s.schedule.kind == "interleaved" && s.micro_batches() % p.pp != 0)
    f.fail(root.require("schedule"),
           fmt::format("the interleaved schedule needs micro-batches ({}) to be a multiple of pp ({})",
                       s.micro_batches(), p.pp));
  if (s.schedule.kind == "dualpipe") {
    // DualPipe (sched/dualpipe.cpp): stage s pairs with its mirror p−1−s, half of the micro-batches
    // enter at each end, and the reference implementation (deepseek-ai/DualPipe) asserts m >= 2·p.
    YAML::Node kind = root.require("schedule")["kind"];
    if (p.pp < 2 || p.pp % 2 != 0)
      f.fail(kind, fmt::format("the dualpipe schedule needs an even pp (stage s pairs with stage pp−1−s), got pp {}", p.pp));
    const int mb = s.micro_batches();
    if (mb % 2 != 0 || mb < 2 * p.pp)
      f.fail(kind, fmt::format("the dualpipe schedule needs an even number of micro-batches, at least 2·pp = {} (half "
                               "enter at each end), got {} = global_batch / (micro_batch·dp)",
                               2 * p.pp, mb));
    if (p.zero >= 3)
      f.fail(par["zero"], "the dualpipe schedule is modelled with zero 0, 1 or 2 (ZeRO-3's per-layer gathers of the "
                          "two mirrored chunks are not)");
  }
}

LoadedScenario read(YamlFile f, const std::vector<std::string>& overrides, const TopologyFactory* factory) {
  YAML::Node root = f.root();
  for (const auto& o : overrides) apply_override(f, root, o);
  MapReader r(f, root, "the scenario");
  Scenario s;
  s.name = r.optional<std::string>("name", f.name());
  if (r.has("nodes")) s.nodes = r.positive_int("nodes", lim::kMaxServers);
  s.model = read_model(f, r.require("model"));
  s.parallel = r.has("parallel") ? read_parallel(f, r.get("parallel")) : ParallelSpec{};
  s.schedule = r.has("schedule") ? read_schedule(f, r.get("schedule")) : ScheduleSpec{};
  s.training = read_training(f, r.require("training"), s.model.dtype);
  if (r.has("compute")) s.compute = read_compute(f, r.get("compute"));
  const YAML::Node calibration = r.get("calibration");
  const YAML::Node plan_gpus = r.get("gpus");  // which GPUs (io/scenario_gpus.hpp), after the checks
  std::optional<Topology> topo;
  YAML::Node tn;
  const YAML::Node placement = r.get("servers_per_domain");
  if (factory) {
    r.allow({"topology"});
    if (placement) f.fail(placement, "'servers_per_domain' needs the scenario's own topology (a file or a mapping)");
    topo.emplace((*factory)(s.nodes));
  } else {
    tn = r.require("topology");
    topo.emplace(io::scenario_topology(f, tn, s.nodes, placement));
    // Default `nodes`: just what the plan needs, when the topology is larger (not with a `gpus` list,
    // whose numbers are the whole topology's).
    const size_t world = static_cast<size_t>(s.parallel.world());
    if (!s.nodes && (!plan_gpus || plan_gpus.IsNull()) && topo->num_gpus() > world && topo->num_hosts() > 1) {
      const size_t per_node = topo->num_gpus() / static_cast<size_t>(topo->num_hosts());
      if (per_node > 0)
        topo.emplace(io::scenario_topology(f, tn, static_cast<int>((world + per_node - 1) / per_node), placement));
    }
  }
  r.finish();
  s.parallel.domain_gpus = topo->gpus_per_island();
  io::resolve_calibration(f, tn, calibration, topo->gpu_spec().model, s);
  check_consistency(f, r, s, topo->num_gpus());
  Topology used = io::select_plan_gpus(f, plan_gpus, std::move(*topo), s.parallel.world());
  return LoadedScenario{std::move(s), std::move(used)};
}

// Every key of `map` (at key path `prefix`) must be a schema key; mappings the schema describes are
// checked the same way (an inline topology is not: it is a topology's schema).
void check_keys(const YamlFile& f, const YAML::Node& map, const std::string& prefix, const std::string& what) {
  std::vector<std::string> names;
  for (const auto& k : key_paths())
    if (k.size() > prefix.size() && k.compare(0, prefix.size(), prefix) == 0) {
      const std::string rest = k.substr(prefix.size());
      names.push_back(rest.substr(0, rest.find('.')));
    }
  for (auto it = map.begin(); it != map.end(); ++it) {
    const std::string key = it->first.Scalar();
    if (std::find(names.begin(), names.end(), key) == names.end()) {
      std::string msg = fmt::format("unknown key '{}' in {}", key, what);
      if (auto s = io::did_you_mean(key, names)) msg += fmt::format(" (did you mean '{}'?)", *s);
      f.fail(it->first, msg);
    }
    const std::string path = prefix + key + ".";
    const bool has_children = std::any_of(key_paths().begin(), key_paths().end(),
                                          [&](const std::string& k) { return k.compare(0, path.size(), path) == 0; });
    if (has_children && it->second.IsMap()) check_keys(f, it->second, path, prefix + key);
  }
}

}  // namespace

const std::vector<std::string>& scenario_key_paths() { return key_paths(); }

void check_scenario_file(const std::filesystem::path& path, const std::vector<std::string>& overrides) {
  YamlFile f = YamlFile::load(path);
  YAML::Node root = f.root();
  for (const auto& o : overrides) apply_override(f, root, o);
  if (!root.IsMap()) f.fail(root, "the scenario must be a mapping of keys to values");
  check_keys(f, root, "", "the scenario");
}

std::vector<std::string> scale_overrides(int layers, int global_batch) {
  std::vector<std::string> out;
  if (layers > 0) out.push_back(fmt::format("model.layers={}", layers));
  if (global_batch > 0) out.push_back(fmt::format("training.global_batch={}", global_batch));
  return out;
}

LoadedScenario load_scenario(const std::filesystem::path& path, const std::vector<std::string>& overrides) {
  return read(YamlFile::load(path), overrides, nullptr);
}

LoadedScenario parse_scenario(const std::string& text, const std::string& name,
                              const std::vector<std::string>& overrides, const TopologyFactory& topology) {
  return read(YamlFile::parse(text, name), overrides, &topology);
}

}  // namespace plansim
