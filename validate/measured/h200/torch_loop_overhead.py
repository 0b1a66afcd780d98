#!/usr/bin/env python3
"""What a torch.distributed all-reduce loop adds to each call, on the local GPU (a reference measurement, not part
of plansim; validate/nccl/README.md "What the two H200 tables say about the loops").

Two ways a PyTorch benchmark times `dist.all_reduce`, on one process group of one rank (NCCL backend):
- `idle`: the device idle, one call per trial between two CUDA events (barrier, event, call, event, synchronize):
  the older torch sweeps' loop, where the host's time to issue the call lands inside the events;
- `queued`: the device kept busy ~2 ms (torch.cuda._sleep), then `calls` calls queued behind it between the
  events: the host issues them while the device is still busy, so only device time is counted (nccl-tests' loop
  and the newer torch sweeps').
With one rank NCCL moves no data between GPUs, so `queued` is the device's cost of an empty call and
`idle - queued` is the host's per-call cost that the idle loop adds. `host_issue_s` is the host wall time of one
`dist.all_reduce` call as issued in the queued loop (time.perf_counter around it).
Medians over `--trials`. Prints one JSON object per line and writes them all to --json."""
import argparse, json, os, statistics, sys, time
import torch
import torch.distributed as dist


def sleep_cycles_per_ms():
    cycles = 1_000_000
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda._sleep(cycles)
    a.record()
    torch.cuda._sleep(cycles)
    b.record()
    torch.cuda.synchronize()
    return cycles / a.elapsed_time(b)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", default="torch_loop_overhead.json")
    ap.add_argument("--trials", type=int, default=50)
    ap.add_argument("--calls", type=int, default=10, help="calls per queued trial")
    ap.add_argument("--min-bytes", type=int, default=1024)
    ap.add_argument("--max-bytes", type=int, default=128 << 20)
    args = ap.parse_args()
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29533")
    torch.cuda.set_device(0)
    dist.init_process_group("nccl", rank=0, world_size=1, device_id=torch.device("cuda", 0))
    env = {"torch": torch.__version__, "cuda": torch.version.cuda, "nccl": ".".join(map(str, torch.cuda.nccl.version())),
           "gpu": torch.cuda.get_device_name(0), "world_size": dist.get_world_size()}
    print(json.dumps({"environment": env}), flush=True)
    per_ms = sleep_cycles_per_ms()
    rows = []
    size = args.min_bytes
    while size <= args.max_bytes:
        x = torch.rand(size // 4, device="cuda", dtype=torch.float32)
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        for _ in range(5):  # warm-up: communicator, kernels
            dist.all_reduce(x)
        torch.cuda.synchronize()
        idle, queued, issue = [], [], []
        for _ in range(args.trials):
            dist.barrier()
            torch.cuda.synchronize()
            a.record()
            dist.all_reduce(x)
            b.record()
            torch.cuda.synchronize()
            idle.append(a.elapsed_time(b) / 1e3)
        for _ in range(args.trials):
            dist.barrier()
            torch.cuda.synchronize()
            torch.cuda._sleep(int(2 * per_ms))
            a.record()
            for _ in range(args.calls):
                t0 = time.perf_counter()
                dist.all_reduce(x)
                issue.append(time.perf_counter() - t0)
            b.record()
            torch.cuda.synchronize()
            queued.append(a.elapsed_time(b) / 1e3 / args.calls)
        row = {"bytes": size, "idle_s": statistics.median(idle), "queued_s": statistics.median(queued),
               "host_issue_s": statistics.median(issue)}
        row["idle_minus_queued_s"] = row["idle_s"] - row["queued_s"]
        rows.append(row)
        print(json.dumps(row), flush=True)
        del x
        size *= 4
    dist.destroy_process_group()
    json.dump({"environment": env, "trials": args.trials, "calls": args.calls, "rows": rows},
              open(args.json, "w"), indent=1)


if __name__ == "__main__":
    sys.exit(main())
