#pragma once
// Size caps and value ranges on user input (README "Limits"). Every cap is checked before anything
// sized by it is allocated, and every message that rejects a value names the cap. The caps sit well
// above any real system (the largest shipped topology has 24,576 GPUs, the largest model 126 layers),
// so that a typo such as `nodes: 1000000000` is an error in milliseconds instead of gigabytes and
// minutes of work.
#include <cstdint>

namespace plansim::limits {

// Cluster (topology YAML, --nodes, search --gpus).
inline constexpr int64_t kMaxGpus = 131072;           // GPUs in one topology: servers × GPUs per server
inline constexpr int64_t kMaxServers = 131072;        // servers (`nodes`, --nodes)
inline constexpr int64_t kMaxGpusPerServer = 1024;    // node.gpus
inline constexpr int64_t kMaxNicsPerServer = 1024;    // node.nics.count
inline constexpr int64_t kMaxSwitchesPerTier = 65536; // leaves, spines, cores; ports and up-links per switch
inline constexpr int64_t kMaxGraphNodes = 4'000'000;  // nodes of the built graph (GPUs, switches, NICs, ...)
inline constexpr int64_t kMaxGraphLinks = 8'000'000;  // directed links of the built graph

// Model and plan (scenario YAML, --set).
inline constexpr int64_t kMaxLayers = 4096;
inline constexpr int64_t kMaxHidden = 1'048'576;
inline constexpr int64_t kMaxHeads = 65536;
inline constexpr int64_t kMaxFfnHidden = 4'194'304;
inline constexpr int64_t kMaxVocab = 16'777'216;
inline constexpr int64_t kMaxSeqLen = 16'777'216;
inline constexpr int64_t kMaxExperts = 65536;
inline constexpr int64_t kMaxGlobalBatch = 16'777'216;  // sequences per iteration
inline constexpr int64_t kMaxMicroBatch = 1'048'576;    // sequences per micro-batch
inline constexpr int64_t kMaxMicroBatches = 65536;      // micro-batches per iteration per pipeline
inline constexpr int64_t kMaxVirtualStages = 256;

// Collective model and commands.
inline constexpr int64_t kMaxChannels = 64;             // NCCL's MAXCHANNELS
inline constexpr int64_t kMaxCollectiveRows = 4096;     // sizes in one `plansim collective` sweep
inline constexpr int64_t kMaxSweepPoints = 100'000;     // points of one `plansim sweep` / `plot sweep`
inline constexpr int64_t kMaxJobs = 1024;               // -j worker threads
inline constexpr int64_t kMaxTop = 1'000'000;           // search --top, --max-plans

// Input files, refused before they are parsed: yaml-cpp scans a few MB/s and its tree costs ~450 bytes
// per value, so these keep any YAML input within ~1 s and ~100 MB.
inline constexpr int64_t kMaxInputFileBytes = 2 * 1024 * 1024;
// Reports read back (`plansim report`, `validate --sim/--measured`; io/json_document.hpp) carry every op of
// every simulated rank: ~130 MB for 64 GPUs. They are JSON, parsed by nlohmann at ~100 MB/s.
inline constexpr int64_t kMaxReportFileBytes = int64_t{512} * 1024 * 1024;
// nccl-tests logs (io/nccl_tests_reader.hpp) are read line by line, not as a YAML tree: a multi-node log
// with NCCL_DEBUG=INFO runs to tens of MB.
inline constexpr int64_t kMaxLogFileBytes = 64 * 1024 * 1024;
inline constexpr int64_t kMaxYamlValues = 100'000;            // scalars, lists and mappings in one file
inline constexpr int64_t kMaxYamlExpandedValues = 1'000'000;  // the same with every alias expanded

// Physical quantities, after the unit is applied (README "Units").
inline constexpr double kMaxBytes = 1125899906842624.0;  // 1 PiB
inline constexpr double kMinRate = 1.0;                  // 1 B/s
inline constexpr double kMaxRate = 1e15;                 // 1 PB/s
inline constexpr double kMaxInputSeconds = 1e6;          // times in inputs: 0 .. 1e6 s (11.6 days)
inline constexpr double kMinFlopRate = 1.0;              // 1 FLOP/s
inline constexpr double kMaxFlopRate = 1e18;             // 1 EFLOP/s per GPU
inline constexpr double kMaxFlops = 1e30;                // a FLOP count
inline constexpr double kMaxPlainNumber = 1e18;          // any other number in an input

}  // namespace plansim::limits
