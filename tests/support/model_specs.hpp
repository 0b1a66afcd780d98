#pragma once
// Models the model-layer tests share: GPT-3 175B as Megatron 2021 ran it, a Llama 3 shape, and an op by name.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "sim/model/transformer.hpp"

namespace plansim::testing {

// GPT-3 175B as in Narayanan et al. 2021 (Megatron GPT: biases, learned positions, tied embeddings).
inline ModelSpec gpt3() {
  ModelSpec m;
  m.layers = 96;
  m.hidden = 12288;
  m.heads = 96;
  m.kv_heads = 96;
  m.ffn_hidden = 4 * 12288;
  m.vocab = 51200;
  m.seq_len = 2048;
  m.bias = true;
  m.learned_positions = true;
  m.tied_embeddings = true;
  m.dropout = true;
  return m;
}

// A Llama 3 model: 8 KV heads, SwiGLU, vocabulary 128,256, sequence 8,192.
inline ModelSpec llama3(int layers, int64_t hidden, int heads, int64_t ffn_hidden) {
  ModelSpec m;
  m.layers = layers;
  m.hidden = hidden;
  m.heads = heads;
  m.kv_heads = 8;
  m.ffn_hidden = ffn_hidden;
  m.vocab = 128256;
  m.seq_len = 8192;
  m.gated_mlp = true;
  return m;
}
inline OpCost op_named(const std::vector<OpCost>& ops, const std::string& name) {
  for (const auto& o : ops)
    if (o.name == name) return o;
  FAIL("no op " << name);
  return {};
}

}  // namespace plansim::testing
