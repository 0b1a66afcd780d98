#!/usr/bin/env python3
"""Keeps what `plansim validate --measured TRACE` reads of a PyTorch profiler (Kineto) Chrome trace: the
ProfilerStep ranges, the CUDA runtime and driver calls (their correlation ids tie kernels to steps), the GPU
kernels, copies and memsets, and the metadata; drops the CPU operator events and flow arrows, which are
most of a trace's size. Usage: trim_trace.py IN.json OUT.json"""
import json, sys

KEEP = {"user_annotation", "gpu_user_annotation", "cuda_runtime", "cuda_driver", "kernel", "gpu_memcpy", "gpu_memset"}
trace = json.load(open(sys.argv[1]))
events = trace["traceEvents"]
trace["traceEvents"] = [e for e in events if e.get("ph") == "M" or e.get("cat") in KEEP]
json.dump(trace, open(sys.argv[2], "w"), separators=(",", ":"))
print(f"{sys.argv[2]}: {len(trace['traceEvents'])} of {len(events)} events kept")
