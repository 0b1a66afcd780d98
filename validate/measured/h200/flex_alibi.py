#!/usr/bin/env python3
"""What ALiBi costs a flash kernel that computes it in its softmax stage, on the local GPU (a reference measurement,
not part of plansim): PyTorch FlexAttention (one Triton flash kernel generated per score modifier) causal with and
without an ALiBi bias (score + slope_h * (k - q)), bf16, 32 heads of 128, beside SDPA's FlashAttention-2 on the same
shapes. Model FLOPs as torch_attention.py counts them (causal half; backward 2.5x the forward).
Prints one JSON object per line and writes them all to --json."""
import argparse, json, sys, time
import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.nn.attention.flex_attention import flex_attention, create_block_mask

from torch_attention import timed  # the same CUDA-event timing as the SDPA measurements (this folder)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", default="flex_alibi.json")
    ap.add_argument("--seqs", default="4096,16384")
    args = ap.parse_args()
    heads, d, tokens = 32, 128, 32768
    slopes = torch.tensor([2 ** (-8 * (h + 1) / heads) for h in range(heads)], device="cuda")

    def causal(b, h, q, k):
        return q >= k

    def alibi(score, b, h, q, k):
        return score + slopes[h] * (k - q)

    flex = torch.compile(flex_attention, dynamic=False)
    env = {"torch": torch.__version__, "gpu": torch.cuda.get_device_name(0)}
    print(json.dumps({"environment": env}), flush=True)
    rows = []
    for seq in [int(s) for s in args.seqs.split(",")]:
        batch = max(1, tokens // seq)
        q, k, v = (torch.randn(batch, heads, seq, d, device="cuda", dtype=torch.bfloat16, requires_grad=True)
                   for _ in range(3))
        do = torch.randn_like(q)
        fwd_flops = 4.0 * batch * heads * seq * seq * d * 0.5
        mask = create_block_mask(causal, None, None, seq, seq)
        variants = {
            "sdpa_flash2": lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True),
            "flex_causal": lambda: flex(q, k, v, block_mask=mask),
            "flex_causal_alibi": lambda: flex(q, k, v, score_mod=alibi, block_mask=mask),
        }
        for name, f in variants.items():
            row = {"variant": name, "seq": seq, "batch": batch, "heads": heads, "head_dim": d}
            try:
                with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
                    t0 = time.time()
                    t_f = timed(f, 2, 5, 3)
                    t_fb = timed(lambda: f().backward(do), 2, 5, 3)
                row.update({"fwd_s": t_f, "fwd_bwd_s": t_fb, "fwd_tflops": fwd_flops / t_f / 1e12,
                            "fwd_bwd_tflops": 3.5 * fwd_flops / t_fb / 1e12, "wall_s": time.time() - t0})
            except Exception as e:
                row["error"] = f"{type(e).__name__}: {str(e).splitlines()[0][:200]}"
            rows.append(row)
            print(json.dumps(row), flush=True)
        del q, k, v, do
    json.dump({"environment": env, "rows": rows}, open(args.json, "w"), indent=1)


if __name__ == "__main__":
    sys.exit(main())
