#include <catch2/catch.hpp>

#include "sim/core/error.hpp"
#include "sim/io/scenario_loader.hpp"
#include "tests/support/cluster.hpp"

using namespace plansim;

namespace {
const char* kBase = R"(name: small
topology: unused.yaml
model: {layers: 8, hidden: 1024, heads: 16, vocab: 32000, seq_len: 2048}
parallel: {tp: 2, pp: 2, dp: 2}
schedule: {kind: 1f1b}
training: {global_batch: 16, micro_batch: 2, recompute: selective}
)";

LoadedScenario load(const std::string& text, std::vector<std::string> overrides = {}, int gpus = 8) {
  return parse_scenario(text, "s.yaml", overrides,
                        [gpus](std::optional<int>) { return testing::make_cluster(gpus / 4, 4); });
}

std::string error_of(const std::string& text, std::vector<std::string> overrides = {}, int gpus = 8) {
  try {
    load(text, overrides, gpus);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "<no error>";
}
}  // namespace

TEST_CASE("scenario: a valid file loads with defaults filled in", "[io][scenario]") {
  LoadedScenario s = load(kBase);
  CHECK(s.scenario.name == "small");
  CHECK(s.scenario.model.kv_heads == 16);
  CHECK(s.scenario.model.ffn_hidden == 4096);
  CHECK(s.scenario.parallel.world() == 8);
  CHECK(s.scenario.micro_batches() == 4);
  CHECK(s.scenario.training.recompute == Recompute::selective);
  CHECK(s.scenario.training.grad_bucket.value() == Approx(25 * 1048576.0));
  CHECK(s.topology.num_gpus() == 8);
}

TEST_CASE("scenario: --set overrides apply before validation", "[io][scenario]") {
  LoadedScenario s = load(kBase, {"training.micro_batch=4", "parallel.order=[tp, dp, cp, ep, pp]",
                                  "training.overlap.tp_comm=true"});
  CHECK(s.scenario.training.micro_batch == 4);
  CHECK(s.scenario.micro_batches() == 2);
  CHECK(s.scenario.parallel.order[1] == Dim::dp);
  CHECK(s.scenario.training.overlap.tp_comm);
  CHECK(error_of(kBase, {"training.micro_bach=4"}) ==
        "--set training.micro_bach=4: unknown key 'training.micro_bach' (did you mean 'training.micro_batch'?)");
  // A bad overridden value is still reported as an error of the key.
  CHECK(error_of(kBase, {"training.micro_batch=zero"}) ==
        "--set training.micro_batch=zero: 'micro_batch' must be an integer from 1 to 1,048,576, got 'zero'");
  CHECK(error_of(kBase, {"parallel.order=[tp, tp, ep, dp, pp]"}) ==
        "--set parallel.order=[tp, tp, ep, dp, pp]: 'tp' appears twice in 'order'");
}

TEST_CASE("scenario: errors point at file:line:col", "[io][scenario]") {
  std::string typo = kBase;
  typo.replace(typo.find("vocab"), 5, "kv_haeds: 4, vocab");
  CHECK(error_of(typo) == "s.yaml:3:45: unknown key 'kv_haeds' in model (did you mean 'kv_heads'?)");
  CHECK_THAT(error_of(kBase, {}, 4), Catch::Contains("s.yaml:4:11: tp·pp·dp·cp = 2·2·2·1 = 8 GPUs, but the topology has 4"));
  CHECK(error_of(kBase, {}, 16) == "<no error>");  // the first 8 of 16 (tests/io/test_scenario_gpus.cpp)
  CHECK_THAT(error_of(kBase, {"training.global_batch=18"}), Catch::Contains("not divisible by micro_batch·dp = 2·2 = 4"));
  // Layers that do not divide over the stages are allowed (balanced partition); fewer than stages are not.
  CHECK(error_of(kBase, {"parallel.pp=4", "parallel.dp=1", "model.layers=6"}) == "<no error>");
  CHECK_THAT(error_of(kBase, {"parallel.pp=4", "parallel.dp=1", "model.layers=3"}),
             Catch::Contains("layers 3 is fewer than pp·virtual_stages = 4·1 = 4"));
  CHECK_THAT(error_of(kBase, {"parallel.stage_layers=[1, 2, 3]"}),
             Catch::Contains("'stage_layers' lists 3 stages, but pp·virtual_stages = 2·1 = 2"));
  CHECK_THAT(error_of(kBase, {"parallel.stage_layers=[1, 2]"}), Catch::Contains("'stage_layers' sum to 3, but the model has"));
  CHECK_THAT(error_of(kBase, {"parallel.stage_layers=[-1, 9]"}), Catch::Contains("'stage_layers' must be an integer from 0 to 4,096, got -1"));
  CHECK_THAT(error_of(kBase, {"parallel.stage_layers=[4, 0, 4, 0]"}), Catch::Contains("entries must be positive integers (0 allowed for the first and last)"));
  CHECK_THAT(error_of(kBase, {"schedule.kind=interleave"}), Catch::Contains("did you mean 'interleaved'"));
  CHECK_THAT(error_of(kBase, {"parallel.ep=2"}), Catch::Contains("needs an MoE model"));
  CHECK_THAT(error_of(kBase, {"parallel.order=[tp, tp, ep, dp, pp]"}), Catch::Contains("'tp' appears twice"));
  CHECK_THAT(error_of(kBase, {"schedule.virtual_stages=2"}), Catch::Contains("needs kind: interleaved"));
  CHECK_THAT(error_of(kBase, {"training.recompute=some"}), Catch::Contains("must be one of none, selective, selective_op, full"));
}

TEST_CASE("scenario: dualpipe needs even pp, an even m >= 2·pp and ZeRO <= 2", "[io][scenario][dualpipe]") {
  std::string dual = kBase;
  dual.replace(dual.find("kind: 1f1b"), 10, "kind: dualpipe");
  CHECK(error_of(dual) == "<no error>");  // pp 2, m = 16 / (2·2) = 4 = 2·pp
  CHECK(error_of(dual, {"training.global_batch=8"}) ==
        "s.yaml:5:18: the dualpipe schedule needs an even number of micro-batches, at least 2·pp = 4 (half enter at "
        "each end), got 2 = global_batch / (micro_batch·dp)");
  CHECK_THAT(error_of(dual, {"training.global_batch=20"}), Catch::Contains("got 5 = global_batch"));
  CHECK(error_of(dual, {"parallel.pp=1", "parallel.dp=4"}) ==
        "s.yaml:5:18: the dualpipe schedule needs an even pp (stage s pairs with stage pp−1−s), got pp 1");
  CHECK_THAT(error_of(dual, {"parallel.zero=3"}), Catch::Contains("modelled with zero 0, 1 or 2"));
  CHECK_THAT(error_of(dual, {"schedule.virtual_stages=2"}), Catch::Contains("needs kind: interleaved"));
}

TEST_CASE("scenario: compute keys (the calibration profile's), attention mask, MoE capacity, pipeline split",
          "[io][scenario]") {
  LoadedScenario s = load(kBase, {"compute.sustained_factor=0.9", "compute.mamf_shape=[2048, 2048, 13312]",
                                  "compute.sm_count=132", "compute.gemm_tile_latency=1 us",
                                  "compute.moe_load_imbalance=1.2", "compute.grouped_gemm_efficiency=0.8",
                                  "compute.gemm_feed_ratio=1.1", "compute.gemm_tile_k_bytes=64",
                                  "model.attention={mask: causal, window: 512}"});
  const ComputeOverrides& c = s.scenario.compute;
  CHECK(*c.sustained_factor == 0.9);
  CHECK((*c.mamf_shape)[2] == 13312);
  CHECK(*c.sm_count == 132);
  CHECK(c.gemm_tile_latency->seconds() == Approx(1e-6));
  CHECK(*c.moe_load_imbalance == 1.2);
  CHECK(*c.grouped_gemm_efficiency == 0.8);
  CHECK(s.scenario.model.attention.causal);
  CHECK(s.scenario.model.attention.window == 512);
  CHECK(load(kBase).scenario.model.attention.causal);  // default: causal, no window
  CHECK(error_of(kBase, {"compute.sustained_factor=1.5"}).find("'sustained_factor' must be a number > 0 and <= 1, got 1.5") !=
        std::string::npos);
  CHECK(error_of(kBase, {"compute.moe_load_imbalance=0.5"}).find("must be a number from 1 to 1,000") != std::string::npos);
  CHECK(error_of(kBase, {"compute.mamf_shape=[1, 2]"}).find("'mamf_shape' must list M, N, K") != std::string::npos);
  CHECK(error_of(kBase, {"model.attention={mask: full, window: 8}"}).find("needs mask: causal") != std::string::npos);
  CHECK(error_of(kBase, {"model.attention={mask: sparse}"}) != "<no error>");
  // model.head_dim: a positive width, apart from hidden / heads (Qwen3, gpt-oss); window_every needs a window.
  LoadedScenario hd = load(kBase, {"model.head_dim=128", "model.attention={window: 128, window_every: 2}"});
  CHECK(hd.scenario.model.head_dim() == 128);
  CHECK(hd.scenario.model.attention.window_every == 2);
  CHECK_FALSE(hd.scenario.model.attention.alibi);
  // model.attention.bias: ALiBi (MPT, BLOOM) or none.
  CHECK(load(kBase, {"model.attention={bias: alibi}"}).scenario.model.attention.alibi);
  CHECK_FALSE(load(kBase, {"model.attention={bias: none}"}).scenario.model.attention.alibi);
  CHECK(error_of(kBase, {"model.attention={bias: rope}"}).find("'bias'") != std::string::npos);
  CHECK(load(kBase, {"compute.alibi_attention_efficiency=0.3"}).scenario.compute.alibi_attention_efficiency == 0.3);
  CHECK(error_of(kBase, {"compute.alibi_attention_efficiency=-1"}).find("alibi_attention_efficiency") != std::string::npos);
  CHECK(error_of(kBase, {"model.head_dim=0"}).find("head_dim") != std::string::npos);
  CHECK(error_of(kBase, {"model.head_dim=x"}).find("head_dim") != std::string::npos);
  CHECK(error_of(kBase, {"model.attention={window_every: 2}"}).find("'window_every' needs a 'window'") != std::string::npos);
  CHECK(error_of(kBase, {"model.attention={window: 64, window_every: 0}"}).find("window_every") != std::string::npos);
  CHECK(error_of(kBase, {"compute.gemm_half_flops=2e9"}).find("unknown key") != std::string::npos);
  // Megatron's embedding/loss slots: 8 layers + 2 do not divide over pp 2 · v 1... they do (5 each);
  // 8 + 1 does not.
  LoadedScenario p = load(kBase, {"parallel.pipeline_split={embedding: true, loss: true}"});
  CHECK(p.scenario.parallel.split_embedding);
  CHECK(p.scenario.parallel.split_loss);
  CHECK(error_of(kBase, {"parallel.pipeline_split={embedding: true}"}).find("must divide over pp·virtual_stages") !=
        std::string::npos);
  CHECK(load(kBase, {"parallel.stage_layers=[0, 8]"}).scenario.parallel.stage_layers[0] == 0);
  CHECK(error_of(kBase, {"model.moe={experts: 4, capacity_factor: 0}"}) != "<no error>");
}

TEST_CASE("scenario: training.finetune keys and their errors", "[io][scenario][finetune]") {
  LoadedScenario s = load(kBase, {"training.finetune={method: lora, rank: 16, alpha: 32, targets: [qkv, fc2]}"});
  const FinetuneSpec& f = s.scenario.training.finetune;
  CHECK(f.method == FinetuneMethod::lora);
  CHECK(f.declared);
  CHECK(f.rank == 16);
  CHECK(f.targets_has(LoraTarget::qkv));
  CHECK(f.targets_has(LoraTarget::fc2));
  CHECK_FALSE(f.targets_has(LoraTarget::proj));
  CHECK(load(kBase, {"training.finetune.method=lora"}).scenario.training.finetune.targets ==
        static_cast<uint8_t>(LoraTarget::qkv));  // default: rank 8 on QKV
  CHECK(load(kBase, {"training.finetune={method: frozen_layers, frozen_layers: 7}"}).scenario.training.finetune.frozen_layers == 7);
  CHECK_FALSE(load(kBase).scenario.training.finetune.declared);
  std::string in_file = kBase;
  in_file.replace(in_file.find("recompute: selective}"), 21,
                  "recompute: selective,\n           finetune: {method: lora, targets: [qkv, mlp]}}");
  CHECK(error_of(in_file) == "s.yaml:7:52: 'targets' entries must be qkv, proj, fc1 or fc2");
  CHECK(error_of(kBase, {"training.finetune.method=lorra"}) ==
        "--set training.finetune.method=lorra: 'method' must be one of full, lora, frozen_layers, got 'lorra' (did you mean 'lora'?)");
  CHECK(error_of(kBase, {"training.finetune.ranc=4"}) ==
        "--set training.finetune.ranc=4: unknown key 'training.finetune.ranc' (did you mean 'training.finetune.rank'?)");
  CHECK(error_of(kBase, {"training.finetune={method: full, rank: 4}"}) ==
        "--set training.finetune={method: full, rank: 4}: 'rank' applies to method: lora, not full");
  CHECK(error_of(kBase, {"training.finetune={method: lora, frozen_layers: 4}"}) ==
        "--set training.finetune={method: lora, frozen_layers: 4}: 'frozen_layers' applies to method: frozen_layers, not lora");
  CHECK_THAT(error_of(kBase, {"training.finetune={method: lora, rank: 0}"}), Catch::Contains("'rank' must be an integer from 1"));
  CHECK_THAT(error_of(kBase, {"training.finetune={method: lora, rank: 1024}"}),
             Catch::Contains("LoRA rank 1024 is not below hidden 1024"));
  CHECK_THAT(error_of(kBase, {"training.finetune={method: lora, targets: []}"}),
             Catch::Contains("'targets' must list the GEMMs that get adapters"));
  CHECK_THAT(error_of(kBase, {"training.finetune={method: lora, targets: [qkv, qkv]}"}),
             Catch::Contains("'qkv' appears twice in 'targets'"));
  CHECK_THAT(error_of(kBase, {"training.finetune={method: lora, alpha: -1}"}), Catch::Contains("'alpha'"));
  CHECK_THAT(error_of(kBase, {"training.finetune={method: frozen_layers}"}),
             Catch::Contains("method: frozen_layers needs 'frozen_layers'"));
  CHECK_THAT(error_of(kBase, {"training.finetune={method: frozen_layers, frozen_layers: 8}"}),
             Catch::Contains("frozen_layers 8 leaves nothing to train below the output layer of a 8-layer model; at most 7"));
  CHECK_THAT(error_of(kBase, {"training.finetune={method: frozen_layers, frozen_layers: -1}"}),
             Catch::Contains("'frozen_layers' must be an integer from 0"));
  CHECK_THAT(error_of(kBase, {"training.finetune=lora"}), Catch::Contains("training.finetune"));
  CHECK_THAT(error_of(kBase, {"model.moe={experts: 8}", "training.finetune={method: lora, targets: [fc1]}"}),
             Catch::Contains("the experts' fc1/fc2 adapters are not"));
}

TEST_CASE("scenario: MoE token exchange keys (ep_dispatcher, moe_a2a_overlap) and their errors", "[io][scenario][moe]") {
  const std::vector<std::string> moe = {"model.moe={experts: 8, top_k: 2}", "parallel.ep=2"};
  auto with = [&](std::vector<std::string> more) {
    more.insert(more.begin(), moe.begin(), moe.end());
    return more;
  };
  LoadedScenario s = load(kBase, with({"parallel.ep_dispatcher=hierarchical"}));
  CHECK(s.scenario.parallel.ep_dispatcher == ParallelSpec::EpDispatcher::hierarchical);
  CHECK(s.scenario.parallel.domain_gpus == 4);  // the test cluster's servers
  CHECK(load(kBase).scenario.parallel.ep_dispatcher == ParallelSpec::EpDispatcher::alltoall);
  CHECK(error_of(kBase, with({"parallel.ep_dispatcher=deepep"})).find("ep_dispatcher") != std::string::npos);
  // moe_a2a_overlap: pp 2 needs the interleaved schedule; an MoE model with ep > 1; a boolean.
  CHECK(error_of(kBase, with({"schedule.moe_a2a_overlap=true"})).find("needs kind: interleaved") != std::string::npos);
  const std::vector<std::string> inter = {"schedule.kind=interleaved", "schedule.virtual_stages=2",
                                          "schedule.moe_a2a_overlap=true"};
  LoadedScenario o = load(kBase, with(inter));
  CHECK(o.scenario.schedule.moe_a2a_overlap);
  CHECK(error_of(kBase, inter).find("needs an MoE model with ep > 1") != std::string::npos);
  CHECK(error_of(kBase, with({"schedule.moe_a2a_overlap=maybe"})).find("moe_a2a_overlap") != std::string::npos);
}

TEST_CASE("scenario: model.fp8_scaling is delayed by default and validated", "[io][scenario]") {
  CHECK(load(kBase).scenario.model.fp8_scaling == Fp8Scaling::delayed);
  CHECK(load(kBase, {"model.fp8_scaling=tensorwise"}).scenario.model.fp8_scaling == Fp8Scaling::tensorwise);
  CHECK(load(kBase, {"model.fp8_scaling=rowwise", "model.dtype=fp8"}).scenario.model.fp8_scaling == Fp8Scaling::rowwise);
  std::string bad = kBase;
  bad.replace(bad.find("seq_len: 2048}"), 14, "seq_len: 2048, fp8_scaling: current}");
  CHECK(error_of(bad) == "s.yaml:3:87: 'fp8_scaling' must be one of delayed, tensorwise, rowwise, got 'current'");
  CHECK_THAT(error_of(kBase, {"model.fp8_scaling=7"}), Catch::Contains("'fp8_scaling' must be one of delayed, tensorwise, rowwise"));
  CHECK_THAT(error_of(kBase, {"model.fp8_scalng=rowwise"}), Catch::Contains("did you mean 'model.fp8_scaling'"));
}

TEST_CASE("scenario: parallel.expert_tp folds the experts over tp·cp·dp, and its errors", "[io][scenario][moe]") {
  // kBase: tp 2, pp 2, dp 2 on 8 GPUs. EP 4 does not divide dp 2 but divides tp·cp·dp = 4 once folded.
  const std::vector<std::string> moe = {"model.moe={experts: 8, top_k: 2}", "parallel.sequence_parallel=true"};
  auto with = [&](std::vector<std::string> more) {
    more.insert(more.begin(), moe.begin(), moe.end());
    return more;
  };
  const LoadedScenario s = load(kBase, with({"parallel.ep=4", "parallel.expert_tp=1"}));
  CHECK(s.scenario.parallel.experts_folded());
  CHECK(s.scenario.parallel.expert_tp_size() == 1);
  CHECK(s.scenario.parallel.expert_replicas() == 1);
  CHECK_FALSE(load(kBase, with({"parallel.ep=2", "parallel.expert_tp=2"})).scenario.parallel.experts_folded());
  CHECK_THAT(error_of(kBase, with({"parallel.ep=4"})), Catch::Contains("ep 4 must divide dp 2") &&
                                                          Catch::Contains("expert_tp: 1 folds EP over tp·cp·dp"));
  CHECK(error_of(kBase, with({"parallel.ep=2", "parallel.expert_tp=3"})) ==
        "--set parallel.expert_tp=3: expert_tp must be 1 (MoE parallel folding) or tp (2), got 3: other widths are not "
        "modelled");
  CHECK_THAT(error_of(kBase, {"model.moe={experts: 8, top_k: 2}", "parallel.ep=2", "parallel.expert_tp=1"}),
             Catch::Contains("needs sequence_parallel: true"));
  CHECK_THAT(error_of(kBase, with({"parallel.ep=8", "parallel.expert_tp=1"})),
             Catch::Contains("ep 8 must divide tp·cp·dp = 4"));
  CHECK_THAT(error_of(kBase, {"parallel.expert_tp=1"}), Catch::Contains("expert_tp needs an MoE model"));
  CHECK_THAT(error_of(kBase, with({"parallel.expert_tp=0"})), Catch::Contains("expert_tp"));
  // In a file: file:line:col.
  const std::string file = std::string(kBase).replace(std::string(kBase).find("parallel: {tp: 2, pp: 2, dp: 2}"),
                                                       31, "parallel: {tp: 2, pp: 2, dp: 2, ep: 2, expert_tp: 5}");
  CHECK_THAT(error_of(file, {"model.moe={experts: 8, top_k: 2}"}), Catch::StartsWith("s.yaml:4:"));
}
