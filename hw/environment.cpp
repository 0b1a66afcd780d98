#include "hw/environment.hpp"

#include <cublasLt.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <fmt/format.h>
#include <nccl.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>

#include "hw/launch_env.hpp"
#include "hw/nccl_bootstrap.hpp"
#ifdef PLANSIM_HAVE_CUDNN
#include "hw/cudnn_sdpa.hpp"
#endif

extern char** environ;

namespace plansim::hw {
namespace {

// The few NVML entry points used, resolved with dlsym (NVML's C ABI: int status, 0 = success).
using NvmlDevice = void*;
struct Nvml {
  void* lib = nullptr;
  int (*init)() = nullptr;
  int (*shutdown)() = nullptr;
  int (*by_pci)(const char*, NvmlDevice*) = nullptr;
  int (*clock)(NvmlDevice, int, unsigned*) = nullptr;        // nvmlDeviceGetClockInfo (0 graphics, 1 SM, 2 mem)
  int (*power)(NvmlDevice, unsigned*) = nullptr;             // milliwatts
  int (*temperature)(NvmlDevice, int, unsigned*) = nullptr;  // 0 = GPU
  int (*reasons)(NvmlDevice, unsigned long long*) = nullptr; // nvmlDeviceGetCurrentClocksEventReasons
  int (*nvlink_state)(NvmlDevice, unsigned, int*) = nullptr; // nvmlDeviceGetNvLinkState
  std::string error;

  Nvml() {
    lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) {
      error = "libnvidia-ml.so.1 not found";
      return;
    }
    auto sym = [&](auto& fn, const char* name) { fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib, name)); };
    sym(init, "nvmlInit_v2");
    sym(shutdown, "nvmlShutdown");
    sym(by_pci, "nvmlDeviceGetHandleByPciBusId_v2");
    sym(clock, "nvmlDeviceGetClockInfo");
    sym(power, "nvmlDeviceGetPowerUsage");
    sym(temperature, "nvmlDeviceGetTemperature");
    sym(reasons, "nvmlDeviceGetCurrentClocksEventReasons");
    if (reasons == nullptr) sym(reasons, "nvmlDeviceGetCurrentClocksThrottleReasons");
    sym(nvlink_state, "nvmlDeviceGetNvLinkState");
    if (init == nullptr || by_pci == nullptr || clock == nullptr) error = "libnvidia-ml.so.1 lacks nvmlInit_v2";
    else if (init() != 0) error = "nvmlInit_v2 failed";
  }
  ~Nvml() {
    if (error.empty() && shutdown != nullptr) shutdown();
    if (lib != nullptr) dlclose(lib);
  }
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;
  [[nodiscard]] bool ok() const { return error.empty(); }
};

std::string pci_bus_id(int device) {
  char id[32] = {};
  if (cudaDeviceGetPCIBusId(id, sizeof(id), device) != cudaSuccess) {
    cudaGetLastError();
    return "";
  }
  return id;
}

std::string hostname() {
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  return host;
}

std::string sysfs_pci_path(const std::string& bus_id) {
  std::string lower = bus_id;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::error_code ec;
  const auto p = std::filesystem::canonical("/sys/bus/pci/devices/" + lower, ec);
  return ec ? "" : p.string();
}

}  // namespace

struct NvmlSampler::Impl {
  Nvml nvml;
  std::vector<int> devices;
  std::vector<std::string> bus_ids;
  std::vector<NvmlDevice> handles;
  std::vector<std::vector<NvmlSample>> samples;
  std::atomic<bool> stop{false};
  std::thread thread;
};

NvmlSampler::NvmlSampler(const std::vector<int>& devices, int period_ms) : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.devices = devices;
  if (!m.nvml.ok()) return;
  for (int d : devices) {
    m.bus_ids.push_back(pci_bus_id(d));
    NvmlDevice h = nullptr;
    m.handles.push_back(m.nvml.by_pci(m.bus_ids.back().c_str(), &h) == 0 ? h : nullptr);
  }
  m.samples.resize(devices.size());
  m.thread = std::thread([&m, period_ms] {
    const auto t0 = std::chrono::steady_clock::now();
    while (!m.stop) {
      const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      for (size_t i = 0; i < m.handles.size(); ++i) {
        if (m.handles[i] == nullptr) continue;
        NvmlSample s;
        s.t_s = t;
        unsigned v = 0;
        if (m.nvml.clock(m.handles[i], 1, &v) == 0) s.sm_clock_mhz = v;
        if (m.nvml.clock(m.handles[i], 2, &v) == 0) s.mem_clock_mhz = v;
        if (m.nvml.power != nullptr && m.nvml.power(m.handles[i], &v) == 0) s.power_w = v / 1e3;
        if (m.nvml.temperature != nullptr && m.nvml.temperature(m.handles[i], 0, &v) == 0) s.temperature_c = v;
        unsigned long long r = 0;
        if (m.nvml.reasons != nullptr && m.nvml.reasons(m.handles[i], &r) == 0) s.throttle = r;
        m.samples[i].push_back(s);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(period_ms));
    }
  });
}

NvmlSampler::~NvmlSampler() { stop(); }

nlohmann::json NvmlSampler::stop() {
  Impl& m = *impl_;
  if (!m.nvml.ok()) return {{"nvml", m.nvml.error}};
  m.stop = true;
  if (m.thread.joinable()) m.thread.join();
  nlohmann::json out = nlohmann::json::array();
  for (size_t i = 0; i < m.devices.size(); ++i) {
    nlohmann::json d = summarize_samples(m.samples[i]);
    d["device"] = m.devices[i];
    d["pci_bus_id"] = m.bus_ids[i];
    out.push_back(d);
  }
  return out;
}

DetectedTopology detect_topology(const std::vector<int>& devices) {
  DetectedTopology t;
  int visible = 0;
  if (cudaGetDeviceCount(&visible) != cudaSuccess) cudaGetLastError();
  t.gpus = visible;
  Nvml nvml;
  for (int d : devices) {
    const std::string bus = pci_bus_id(d);
    t.gpu_pci_paths.push_back(sysfs_pci_path(bus));
    int active = 0;
    NvmlDevice h = nullptr;
    if (nvml.ok() && nvml.nvlink_state != nullptr && nvml.by_pci(bus.c_str(), &h) == 0)
      for (unsigned link = 0; link < 18; ++link) {
        int on = 0;
        if (nvml.nvlink_state(h, link, &on) == 0 && on != 0) ++active;
      }
    t.nvlinks.push_back(active);
  }
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/sys/class/infiniband", ec)) {
    DetectedNic n;
    n.name = e.path().filename().string();
    std::ifstream rate(e.path() / "ports" / "1" / "rate");
    std::string text;
    std::getline(rate, text);
    n.rate_gbps = parse_link_rate_gbps(text);
    std::error_code ec2;
    n.pci_path = std::filesystem::canonical(e.path() / "device", ec2).string();
    t.nics.push_back(n);
  }
  return t;
}

nlohmann::json local_environment(const std::vector<int>& ranks, const std::vector<int>& devices, nlohmann::json nvml) {
  const DetectedTopology topo = detect_topology(devices);
  nlohmann::json r = {{"host", hostname()}, {"ranks", nlohmann::json::array()}, {"gpu_telemetry", std::move(nvml)}};
  for (size_t i = 0; i < devices.size(); ++i) {
    cudaDeviceProp prop{};
    const bool ok = cudaGetDeviceProperties(&prop, devices[i]) == cudaSuccess;
    if (!ok) cudaGetLastError();
    r["ranks"].push_back({{"rank", i < ranks.size() ? ranks[i] : -1},
                          {"device", devices[i]},
                          {"gpu", ok ? prop.name : "?"},
                          {"pci_bus_id", pci_bus_id(devices[i])},
                          {"nic", nearest_nic(topo.gpu_pci_paths[i], topo.nics)},
                          {"active_nvlinks", topo.nvlinks[i]}});
  }
  return r;
}

namespace {
nlohmann::json environment_record(const std::vector<std::string>& all, const TopologyFacts* facts,
                                  const std::vector<int>& devices) {
  int driver = 0, runtime = 0, nccl = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  ncclGetVersion(&nccl);
  nlohmann::json versions = {{"plansim_hw", "0.1.0"},
                             {"cuda_driver", driver},
                             {"cuda_runtime", runtime},
                             {"nccl", nccl},
                             {"cublaslt", cublasLtGetVersion()}};
#ifdef PLANSIM_HAVE_CUDNN
  versions["cudnn"] = cudnn_version();
#else
  versions["cudnn"] = nullptr;
#endif
  nlohmann::json out = {{"tool", "plansim-hw 0.1.0"},
                        {"versions", versions},
                        {"variables", nccl_cuda_variables(environ)},
                        {"processes", nlohmann::json::array()}};
  for (const std::string& s : all) out["processes"].push_back(nlohmann::json::parse(s));
  if (facts != nullptr) out["topology_check"] = topology_check(detect_topology(devices), *facts);
  return out;
}
}  // namespace

nlohmann::json gather_environment(const ProcessGroup& procs, const nlohmann::json& local, const TopologyFacts* facts,
                                  const std::vector<int>& devices) {
  return environment_record(procs.gather(local.dump()), facts, devices);
}

nlohmann::json bench_environment(const std::vector<int>& devices, nlohmann::json nvml) {
  std::vector<int> ranks(devices.size(), 0);
  return environment_record({local_environment(ranks, devices, std::move(nvml)).dump()}, nullptr, devices);
}

}  // namespace plansim::hw
