#!/usr/bin/env python3
"""Notebook-style example: sweep the micro-batch size of a pipeline plan and plot bubble vs throughput.

    python3 docs/examples/sweep_microbatch.py [SCENARIO] [--out FILE.png]

Run from the repository root after scripts/setup.sh (README "Python"). Prints one row per micro-batch
size; draws the figure with matplotlib when it is installed (apt-get install python3-matplotlib),
else says so and only prints.
"""
import argparse
import os
import sys

import plansim

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("scenario", nargs="?", default="scenarios/seed-pipeline-4x16.yaml")
parser.add_argument("--out", default="sweep_microbatch.png")
args = parser.parse_args()

# %% One sweep: micro_batch over the divisors that keep global_batch / (micro_batch·dp) whole.
base = plansim.run(args.scenario)
micro_batches = [1, 2, 4, 8, 16]
rows = plansim.sweep(args.scenario, vary={"training.micro_batch": micro_batches})

# %% The table: a smaller micro-batch means more micro-batches per iteration, so a smaller bubble,
# but smaller GEMMs; the sweep measures where the two meet.
print(f"{base['name']}: {base['gpus']} GPUs, {len(base['stages'])} stages")
print(f"{'micro_batch':>11} {'micro-batches':>13} {'bubble %':>9} {'tokens/s':>10} {'memory GiB':>10}")
points = []
for r in rows:
    mb = int(r["point"]["training.micro_batch"])
    if not r["valid"]:
        print(f"{mb:>11}  invalid: {r['error']}")
        continue
    m = r["metrics"]
    points.append((mb, m["micro_batches"], 100 * m["bubble_fraction"], m["tokens_per_s"], m["memory_peak_GiB"]))
    print(f"{mb:>11} {m['micro_batches']:>13} {100 * m['bubble_fraction']:>9.1f} {m['tokens_per_s']:>10.0f}"
          f" {m['memory_peak_GiB']:>10.1f}")

# %% The picture: bubble (x) against throughput (y), one labelled point per micro-batch size.
try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    print("matplotlib is not installed: no plot (apt-get install python3-matplotlib)", file=sys.stderr)
    sys.exit(0)

fig, ax = plt.subplots(figsize=(6, 4))
ax.plot([p[2] for p in points], [p[3] for p in points], "o-")
for mb, m, bubble, tps, _ in points:
    ax.annotate(f"mb {mb} (m={m})", (bubble, tps), textcoords="offset points", xytext=(5, 5), fontsize=8)
ax.set_xlabel("pipeline bubble (% of the iteration, mean over stages)")
ax.set_ylabel("throughput (tokens/s)")
ax.set_title(f"{base['name']}: micro-batch sweep")
ax.grid(True, alpha=0.3)
fig.tight_layout()
fig.savefig(args.out, dpi=120)
print(f"wrote {os.path.abspath(args.out)}")
