#!/usr/bin/env bash
# Regenerates the pictures of README "Pictures" (docs/plots/*.svg): the timeline of every shipped
# schedule, the memory and the time breakdown of one plan, all from seed-pipeline-4x16.yaml cut to
# 8 micro-batches (global_batch 16 over DP 2) so the boxes stay readable.
# Usage: scripts/render_docs_plots.sh [BUILD_DIR]   (default build; needs gnuplot)
set -euo pipefail
cd "$(dirname "$0")/.."
plansim="${1:-build}/plansim"
scenario=scenarios/seed-pipeline-4x16.yaml
small=(--set training.global_batch=16 --set "name=Llama-7B-shaped PP4 x DP2 on one DGX H100")
mkdir -p docs/plots
for kind in gpipe 1f1b interleaved zb-h1 zb-h2 dualpipe; do
  extra=()
  [[ $kind == interleaved ]] && extra=(--set schedule.virtual_stages=2)
  "$plansim" plot timeline "$scenario" "${small[@]}" --set schedule.kind=$kind "${extra[@]}" \
    --out docs/plots/timeline-$kind.svg
done
"$plansim" plot memory "$scenario" "${small[@]}" --out docs/plots/memory.svg
"$plansim" plot breakdown "$scenario" "${small[@]}" --out docs/plots/breakdown.svg
