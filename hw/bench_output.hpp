#pragma once
// The output of every bench: one JSON schema (documented in hw/README.md, read by `plansim calibrate`)
// and the nccl-tests text table for `bench nccl`.
//
//   {"bench": "nccl" | "gemm" | "hbm" | "p2p", "schema_version": 1, "tool": "plansim-hw 0.1.0",
//    "device": {...}, "config": {...}, "rows": [{...}, ...]}
#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

#include "hw/bench_spec.hpp"

namespace plansim::hw {

inline constexpr int kBenchSchemaVersion = 1;

nlohmann::json make_bench_document(const std::string& bench, nlohmann::json device, nlohmann::json config);

// Writes the document (pretty-printed) to `path`; throws std::runtime_error if the file cannot be written.
void write_bench_json(const std::string& path, const nlohmann::json& doc);

// One timing of one placement (out-of-place or in-place) of an NCCL op at one size.
struct NcclTiming {
  double seconds = 0;  // mean time per iteration
  Bandwidth bw;
  std::size_t wrong = 0;  // elements that failed the check, summed over ranks
};

// The JSON row of one size (placement "out_of_place" or "in_place").
nlohmann::json nccl_row(NcclOp op, std::size_t size_bytes, const OpCounts& counts, int nranks, bool in_place,
                        const NcclTiming& t);

// nccl-tests' table: the two header lines, and one line per size with the out-of-place and (optional) in-place
// columns: size (B), count (elements), type, redop, root, then time (us), algbw (GB/s), busbw (GB/s), #wrong.
std::string nccl_table_header();
std::string nccl_table_line(NcclOp op, std::size_t size_bytes, const OpCounts& counts, const NcclTiming& out_of_place,
                            const NcclTiming* in_place);

}  // namespace plansim::hw
