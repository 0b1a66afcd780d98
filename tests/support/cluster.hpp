#pragma once
// Small clusters built in code for tests (no YAML): `hosts` servers of `gpus` GPUs on one NVSwitch
// each, every GPU with its own NIC port to one leaf switch.
#include <string>

#include "sim/topo/topology.hpp"

namespace plansim::testing {

inline GpuSpec test_a100() {
  GpuSpec g;
  g.model = "A100-SXM4-80GB";
  g.peak_dense[DType::bf16] = TFLOPs_per_s(312);
  g.peak_dense[DType::fp16] = TFLOPs_per_s(312);
  g.hbm_capacity = GB(80);
  g.hbm_bandwidth = GBps(2039);
  g.sm_count = 108;
  return g;
}

inline Topology make_cluster(int hosts, int gpus, Rate nvlink = GBps(300), Rate nic = GBps(25),
                             GpuSpec spec = test_a100()) {
  TopologyBuilder b("test-cluster");
  b.set_gpu_spec(std::move(spec));
  b.set_num_hosts(hosts);
  NodeId leaf = b.add_node(NodeKind::leaf_switch, "leaf");
  for (int h = 0; h < hosts; ++h) {
    NodeId sw = b.add_node(NodeKind::nvswitch, "nvsw" + std::to_string(h), h);
    for (int g = 0; g < gpus; ++g) {
      NodeId gpu = b.add_node(NodeKind::gpu, "gpu" + std::to_string(h) + "." + std::to_string(g), h, g);
      b.add_duplex(gpu, sw, LinkKind::nvlink, nvlink, Time::ns(500));
      if (hosts > 1) b.add_duplex(gpu, leaf, LinkKind::infiniband, nic, Time::us(1));
    }
  }
  return std::move(b).build();
}

}  // namespace plansim::testing
