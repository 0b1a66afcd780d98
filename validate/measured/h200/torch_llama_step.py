#!/usr/bin/env python3
"""The training step of llama3-8b-4l-1gpu.yaml in plain PyTorch (a reference users run, not part of
plansim): Llama 3 8B's dimensions cut to --layers layers (RMSNorm, RoPE, GQA attention through SDPA,
SwiGLU MLP, untied embedding and LM head, cross-entropy), bf16 weights, fused AdamW, --micro-batches
micro-batches of one sequence accumulated per step, eager mode. Profiled with torch.profiler; the Chrome
trace it writes is what `plansim validate --measured TRACE` reads (one ProfilerStep per training step).

--attention default: whatever SDPA picks on this GPU and PyTorch; flash2 / cudnn force that backend."""
import argparse, json, math, time
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

BACKENDS = {"flash2": [SDPBackend.FLASH_ATTENTION], "cudnn": [SDPBackend.CUDNN_ATTENTION],
            "default": [SDPBackend.CUDNN_ATTENTION, SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION,
                        SDPBackend.MATH]}


def rope_tables(seq, head_dim, theta=500000.0):
    inv = 1.0 / (theta ** (torch.arange(0, head_dim, 2, device="cuda").float() / head_dim))
    ang = torch.outer(torch.arange(seq, device="cuda").float(), inv)
    return torch.cos(ang).to(torch.bfloat16), torch.sin(ang).to(torch.bfloat16)


def rope(x, cos, sin):  # x: b, h, s, d (rotate halves, as Hugging Face's Llama)
    x1, x2 = x.chunk(2, dim=-1)
    c = torch.cat([cos, cos], -1)
    s = torch.cat([sin, sin], -1)
    return x * c + torch.cat([-x2, x1], -1) * s


class Block(nn.Module):
    def __init__(self, hidden, heads, kv_heads, ffn):
        super().__init__()
        self.h, self.kv, self.d = heads, kv_heads, hidden // heads
        self.n1 = nn.RMSNorm(hidden, eps=1e-5)
        self.n2 = nn.RMSNorm(hidden, eps=1e-5)
        self.wqkv = nn.Linear(hidden, (heads + 2 * kv_heads) * self.d, bias=False)
        self.wo = nn.Linear(hidden, hidden, bias=False)
        self.w13 = nn.Linear(hidden, 2 * ffn, bias=False)
        self.w2 = nn.Linear(ffn, hidden, bias=False)
        self.gqa_native = True

    def attend(self, q, k, v):
        if self.gqa_native:
            try:
                return F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
            except RuntimeError:
                self.gqa_native = False
        rep = self.h // self.kv
        return F.scaled_dot_product_attention(q, k.repeat_interleave(rep, 1), v.repeat_interleave(rep, 1),
                                              is_causal=True)

    def forward(self, x, cos, sin):
        b, s, _ = x.shape
        qkv = self.wqkv(self.n1(x))
        q, k, v = qkv.split([self.h * self.d, self.kv * self.d, self.kv * self.d], -1)
        q = q.view(b, s, self.h, self.d).transpose(1, 2)
        k = k.view(b, s, self.kv, self.d).transpose(1, 2)
        v = v.view(b, s, self.kv, self.d).transpose(1, 2)
        q, k = rope(q, cos, sin), rope(k, cos, sin)
        a = self.attend(q, k, v).transpose(1, 2).reshape(b, s, -1)
        x = x + self.wo(a)
        g, u = self.w13(self.n2(x)).chunk(2, -1)
        return x + self.w2(F.silu(g) * u)


class Llama(nn.Module):
    def __init__(self, layers, hidden, heads, kv_heads, ffn, vocab):
        super().__init__()
        self.emb = nn.Embedding(vocab, hidden)
        self.blocks = nn.ModuleList(Block(hidden, heads, kv_heads, ffn) for _ in range(layers))
        self.norm = nn.RMSNorm(hidden, eps=1e-5)
        self.head = nn.Linear(hidden, vocab, bias=False)

    def forward(self, tokens, cos, sin):
        x = self.emb(tokens)
        for blk in self.blocks:
            x = blk(x, cos, sin)
        return self.head(self.norm(x))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--seq", type=int, default=8192)
    ap.add_argument("--micro-batches", type=int, default=2)
    ap.add_argument("--attention", choices=list(BACKENDS), default="default")
    ap.add_argument("--steps", type=int, default=3, help="profiled steps after 3 unprofiled")
    ap.add_argument("--trace", default="torch_trace.json")
    ap.add_argument("--json", default="torch_step.json")
    args = ap.parse_args()
    torch.manual_seed(0)
    hidden, heads, kv, ffn, vocab = 4096, 32, 8, 14336, 128256
    model = Llama(args.layers, hidden, heads, kv, ffn, vocab).cuda().to(torch.bfloat16)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-5, fused=True)
    cos, sin = rope_tables(args.seq, hidden // heads)
    data = [torch.randint(0, vocab, (1, args.seq + 1), device="cuda") for _ in range(args.micro_batches)]

    def step():
        for t in data:
            logits = model(t[:, :-1], cos, sin)
            loss = F.cross_entropy(logits.view(-1, vocab).float(), t[:, 1:].reshape(-1)) / args.micro_batches
            loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)

    times = []
    with sdpa_kernel(BACKENDS[args.attention]):
        for _ in range(3):
            step()
        torch.cuda.synchronize()
        sched = torch.profiler.schedule(wait=0, warmup=1, active=args.steps, repeat=1)
        acts = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
        with torch.profiler.profile(activities=acts, schedule=sched) as prof:
            for _ in range(args.steps + 1):
                t0 = time.perf_counter()
                step()
                torch.cuda.synchronize()
                times.append(time.perf_counter() - t0)
                prof.step()
    prof.export_chrome_trace(args.trace)
    params = sum(p.numel() for p in model.parameters())
    times = sorted(times[1:])
    out = {"layers": args.layers, "seq": args.seq, "micro_batches": args.micro_batches,
           "attention": args.attention, "gqa_native": model.blocks[0].gqa_native, "params": params,
           "step_s_median": times[len(times) // 2], "step_s": times, "torch": torch.__version__,
           "gpu": torch.cuda.get_device_name(0), "max_memory_gib": torch.cuda.max_memory_allocated() / 2**30}
    json.dump(out, open(args.json, "w"), indent=1)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
