#!/usr/bin/env python3
"""Causal attention rates of PyTorch SDPA's kernels on the local GPU (a reference measurement, not part of
plansim): FlashAttention-2 (SDPBackend.FLASH_ATTENTION) and cuDNN fused attention (CUDNN_ATTENTION), bf16,
by sequence length and head dimension, forward and forward+backward.

Work per call, as plansim's README defines it: model FLOPs of a causal call = 4·b·h·s²·d / 2 forward
(QKᵀ and A·V over the unmasked half), backward 2.5x the forward (dV, dP, dQ, dK and the recomputed QKᵀ).
TFLOP/s here = those model FLOPs / measured time (what papers plot as "causal" rates).
Timing: CUDA events around `iters` back-to-back calls after `warmup` calls, median of `repeats` such means
(over 16K tokens: one warm-up and `--long-iters` calls). Batch = max(1, tokens / seq): one sequence per call
from `--tokens` up.
Prints one JSON object per line (and writes them all to --json)."""
import argparse, json, sys, time
import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

BACKENDS = {"flash2": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION}


def timed(fn, warmup, iters, repeats):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    means = []
    for _ in range(repeats):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        for _ in range(iters):
            fn()
        b.record()
        b.synchronize()
        means.append(a.elapsed_time(b) / 1e3 / iters)
    means.sort()
    return means[len(means) // 2]


def one(backend, seq, head_dim, causal, tokens, hidden, args):
    heads = hidden // head_dim
    batch = max(1, tokens // seq)
    q, k, v = (torch.randn(batch, heads, seq, head_dim, device="cuda", dtype=torch.bfloat16, requires_grad=True)
               for _ in range(3))
    do = torch.randn_like(q)
    fwd_flops = 4.0 * batch * heads * seq * seq * head_dim * (0.5 if causal else 1.0)
    row = {"backend": backend, "seq": seq, "head_dim": head_dim, "heads": heads, "batch": batch,
           "causal": causal, "dtype": "bf16", "fwd_model_flops": fwd_flops}
    try:
        with sdpa_kernel(BACKENDS[backend]):
            def fwd():
                return F.scaled_dot_product_attention(q, k, v, is_causal=causal)

            def fwd_bwd():
                o = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                o.backward(do)

            warmup, iters = (args.warmup, args.iters) if seq <= 16384 else (1, args.long_iters)
            t_f = timed(fwd, warmup, iters, args.repeats)
            t_fb = timed(fwd_bwd, warmup, iters, args.repeats)
        row.update({"fwd_s": t_f, "fwd_bwd_s": t_fb, "bwd_s": t_fb - t_f,
                    "fwd_tflops": fwd_flops / t_f / 1e12,
                    "bwd_tflops": 2.5 * fwd_flops / (t_fb - t_f) / 1e12,
                    "fwd_bwd_tflops": 3.5 * fwd_flops / t_fb / 1e12})
    except Exception as e:  # a backend that refuses a shape: say so, keep going
        row["error"] = f"{type(e).__name__}: {str(e).splitlines()[0][:200]}"
    del q, k, v, do
    return row


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", default="torch_attention.json")
    ap.add_argument("--tokens", type=int, default=32768, help="batch x sequence per call")
    ap.add_argument("--hidden", type=int, default=4096, help="heads x head_dim")
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--iters", type=int, default=10)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seqs", default="1024,2048,4096,8192,16384", help="causal sequence lengths")
    ap.add_argument("--head-dims", default="64,128")
    ap.add_argument("--noncausal", default="8192", help="sequence lengths also timed without the mask")
    ap.add_argument("--backends", default=",".join(BACKENDS))
    ap.add_argument("--long-iters", type=int, default=3,
                    help="iters for sequences over 16K (a call takes 0.1 s and more there)")
    args = ap.parse_args()
    ints = lambda text: [int(x) for x in text.split(",") if x]
    torch.backends.cuda.matmul.allow_tf32 = False
    rows = []
    env = {"torch": torch.__version__, "cuda": torch.version.cuda, "cudnn": torch.backends.cudnn.version(),
           "gpu": torch.cuda.get_device_name(0), "sm_count": torch.cuda.get_device_properties(0).multi_processor_count}
    print(json.dumps({"environment": env}), flush=True)
    t0 = time.time()
    for backend in args.backends.split(","):
        shapes = [(seq, hd, True) for hd in ints(args.head_dims) for seq in ints(args.seqs)]
        shapes += [(seq, 128, False) for seq in ints(args.noncausal)]  # the mask's saving
        for seq, head_dim, causal in shapes:
            r = one(backend, seq, head_dim, causal, args.tokens, args.hidden, args)
            rows.append(r)
            print(json.dumps(r), flush=True)
    json.dump({"environment": env, "rows": rows, "wall_s": time.time() - t0}, open(args.json, "w"), indent=1)


if __name__ == "__main__":
    sys.exit(main())
