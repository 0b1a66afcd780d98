#pragma once
// The data-movement view of a collective algorithm: the buffer is cut into `num_chunks` equal chunks
// and the algorithm is a list of steps; in a step every transfer reads its source's state as it was at
// the start of the step (transfers of one step are simultaneous), then either copies the chunk over the
// destination's copy or reduces it into it. Participants are the group's ranks 0..n-1 plus, for
// in-switch algorithms (NVLS), extra participants n.. standing for switches that can hold and reduce.
// The reference executor (reference_executor.hpp) runs a schedule and checks the final data.
#include <cstddef>
#include <vector>

namespace plansim {

struct ChunkXfer {
  int src = 0;     // participant index
  int dst = 0;
  int chunk = 0;
  bool reduce = false;  // true: dst += src's chunk; false: dst := src's chunk
};

struct ChunkStep {
  std::vector<ChunkXfer> xfers;
};

struct ChunkSchedule {
  int num_ranks = 0;
  int num_participants = 0;  // ranks plus switch participants
  int num_chunks = 0;        // the buffer (nccl-tests' size S) is num_chunks equal chunks
  std::vector<ChunkStep> steps;
  // All-to-all: S is each rank's own send buffer (nccl-tests' alltoall: count/nranks elements to each
  // peer, busbw = algbw·(n−1)/n), so a chunk is S/n although the schedule names n² of them (one per
  // source and destination). 0 = the usual S/num_chunks.
  int chunks_per_buffer = 0;

  [[nodiscard]] double chunk_bytes(double buffer_bytes) const {
    return buffer_bytes / (chunks_per_buffer > 0 ? chunks_per_buffer : num_chunks);
  }

  ChunkStep& add_step() { return steps.emplace_back(); }
  [[nodiscard]] std::size_t num_xfers() const {
    std::size_t k = 0;
    for (const auto& s : steps) k += s.xfers.size();
    return k;
  }
};

// Where the group's ranks sit: host_of_rank[r] is rank r's server (hierarchical algorithms split by it).
struct GroupShape {
  int n = 0;
  int root = 0;
  std::vector<int> host_of_rank;  // size n

  // Ranks grouped per host in rank order; empty result if hosts are not all the same size or
  // a host's ranks are not contiguous in host order of first appearance.
  [[nodiscard]] std::vector<std::vector<int>> uniform_hosts() const;
  static GroupShape flat(int n, int root = 0);  // every rank on host 0
};

}  // namespace plansim
