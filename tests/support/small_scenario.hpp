#pragma once
// A small dense GPT-like scenario built in code for plan tests (no YAML): 8 layers, hidden 1024,
// 16 heads, sequence 1024, micro-batch 1, `m` micro-batches per pipeline.
#include "sim/plan/scenario.hpp"

namespace plansim::testing {

inline Scenario small_scenario(int tp, int pp, int dp, int m) {
  Scenario s;
  s.model.layers = 8;
  s.model.hidden = 1024;
  s.model.heads = 16;
  s.model.kv_heads = 16;
  s.model.ffn_hidden = 4096;
  s.model.vocab = 32000;
  s.model.seq_len = 1024;
  s.parallel.tp = tp;
  s.parallel.pp = pp;
  s.parallel.dp = dp;
  s.training.global_batch = static_cast<int64_t>(m) * dp;
  s.training.micro_batch = 1;
  return s;
}

// Makes pipeline stages uniform: the embedding and logits become negligible next to the layers (a
// tiny vocabulary and a wide model: layer FLOPs grow as h², the embedding/norm traffic as h).
inline void make_layers_dominate(Scenario& s) {
  s.model.vocab = 8;
  s.model.hidden = 4096;
  s.model.heads = 32;
  s.model.kv_heads = 32;
  s.model.ffn_hidden = 16384;
  s.model.layers = 32;
}

}  // namespace plansim::testing
