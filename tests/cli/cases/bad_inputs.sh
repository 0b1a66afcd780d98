# Every class of bad input (issue 14; README "Reliability"): exit 2, one line on stderr, nothing on stdout,
# within 2 s and 1 GiB. The files in tests/data/bad/<reader>/ are also replayed through the fuzz entry
# points by tests/fuzz/test_corpus_replay.cpp.
bad="$src/tests/data/bad"
h100="$src/topologies/dgx-h100.yaml"
seed="$src/scenarios/seed-pipeline-4x16.yaml"
good="$src/scenarios/antipatterns/good.yaml"

# Every bad file, through the command that reads it.
for f in "$bad"/topology/*; do expect_bad "$plansim" topo "$f"; done
for f in "$bad"/scenario/*; do expect_bad "$plansim" run "$f"; done
for f in "$bad"/calibration/*; do expect_bad "$plansim" collective --topology "$h100" --nodes 1 -b 8 -e 8 --calibration "$f"; done
for f in "$bad"/bench/*; do expect_bad "$plansim" calibrate "$f"; done
for f in "$bad"/report_timings/*; do expect_bad "$plansim" validate --sim "$f" --measured "$src/tests/data/validate/sim.json"; done
for f in "$bad"/report/*; do expect_bad "$plansim" report "$f" --out "$tmp/bad-report.html"; done
for f in "$bad"/nccl_compare/*; do expect_bad "$plansim" collective --compare "$f"; done
for f in "$bad"/nccl_tests/*; do expect_bad "$plansim" calibrate "$f"; done
for f in "$bad"/nccl_tests/*; do [ "${f##*/}" = wrong_allreduce.log ] || expect_bad "$plansim" collective --compare "$f" --topology "$h100"; done
# The scenario files whose problem is in the file itself also fail a sweep (not a table of invalid points).
for f in duplicate_key multi_document layerz scalar_document nonscalar_key empty optimizer_bytes_nan; do
  expect_bad "$plansim" sweep "$bad/scenario/$f.yaml" --vary training.micro_batch=1,2 -j 1
done

# Crash class: int overflow in a 3-tier fabric, then % 0 (was SIGFPE): the cap, with the value.
expect_stderr "fabric_core_overflow.yaml:[0-9]+:[0-9]+: spine.count × spine.up_links = 4,294,967,296 cores is more than 65,536" \
  "$plansim" topo "$bad/topology/fabric_core_overflow.yaml"
expect_stderr "'count' must be an integer from 1 to 65,536, got 2,147,483,647" "$plansim" topo "$bad/topology/fabric_spine_int_overflow.yaml"
expect_stderr "more than 8000000, the cap" "$plansim" topo "$bad/topology/fabric_links_cap.yaml"

# Size caps, with the cap in the message.
expect_stderr "nodes_huge.yaml:1:8: 'nodes' must be an integer from 1 to 131,072, got 1,000,000,000$" "$plansim" topo "$bad/topology/nodes_huge.yaml"
expect_stderr "'gpus' must be an integer from 1 to 1,024, got 100,000,000" "$plansim" topo "$bad/topology/gpus_huge.yaml"
expect_stderr "1,048,576 GPUs is more than 131,072, the cap" "$plansim" topo "$bad/topology/gpus_total_cap.yaml"
expect_stderr "'layers' must be an integer from 1 to 4,096, got 2,000,000,000" "$plansim" run "$bad/scenario/layers_huge.yaml"
expect_stderr "fp8_scaling_unknown.yaml:3:132: 'fp8_scaling' must be one of delayed, tensorwise, rowwise, got 'blockwise'$" \
  "$plansim" run "$bad/scenario/fp8_scaling_unknown.yaml"
expect_stderr "fp8_scaling_list.yaml:3:132: 'fp8_scaling' must be a single value, not a list$" "$plansim" run "$bad/scenario/fp8_scaling_list.yaml"
# MoE parallel folding (parallel.expert_tp): a width not modelled, no sequence parallelism, a dense model, ep wider than the stage.
expect_stderr "expert_tp_width.yaml:4:51: expert_tp must be 1 \\(MoE parallel folding\\) or tp \\(4\\), got 2: other widths are not modelled$" \
  "$plansim" run "$bad/scenario/expert_tp_width.yaml"
expect_stderr "expert_tp_no_sp.yaml:4:51: expert_tp 1 with tp > 1 needs sequence_parallel: true" "$plansim" run "$bad/scenario/expert_tp_no_sp.yaml"
expect_stderr "expert_tp_dense.yaml:4:44: expert_tp needs an MoE model \\(model.moe\\)$" "$plansim" run "$bad/scenario/expert_tp_dense.yaml"
expect_stderr "expert_tp_ep_width.yaml:4:37: ep 16 must divide tp·cp·dp = 8" "$plansim" run "$bad/scenario/expert_tp_ep_width.yaml"
# The host issue time per local expert (compute.expert_launch_overhead): a negative time.
expect_stderr "expert_launch_overhead_negative.yaml:7:35: 'expert_launch_overhead': time must not be negative, got '-20 us'$" \
  "$plansim" run "$bad/scenario/expert_launch_overhead_negative.yaml"
# training.attention and its profile key (flash2_attention_efficiency): unknown kernel, out-of-range, NaN.
expect_stderr "attention_unknown.yaml:6:74: 'attention' must be one of flash, flash2, materialised, got 'flash3' \\(did you mean 'flash'\\?\\)$" \
  "$plansim" run "$bad/scenario/attention_unknown.yaml"
expect_stderr "flash2_efficiency_negative.yaml:7:40: 'flash2_attention_efficiency' must be a number > 0 and <= 10, got -0.3$" \
  "$plansim" run "$bad/scenario/flash2_efficiency_negative.yaml"
expect_stderr "'flash2_attention_efficiency' must be a finite number, got 'nan'$" \
  "$plansim" run "$good" --set compute.flash2_attention_efficiency=nan
# model.attention.bias (ALiBi) and its profile key: an unknown bias, an out-of-range rate.
expect_stderr "attention_bias_unknown.yaml:6:125: 'bias' must be one of none, alibi, got 'alibi-slopes'$" \
  "$plansim" run "$bad/scenario/attention_bias_unknown.yaml"
expect_stderr "'alibi_attention_efficiency' must be a number > 0 and <= 10, got -2$" \
  "$plansim" run "$good" --set compute.alibi_attention_efficiency=-2
# torchtitan's per-op AC (recompute: selective_op) saves a flash kernel's output: not materialised scores.
expect_stderr "selective_op_materialised.yaml:6:[0-9]*: 'training.attention: materialised' cannot run under 'recompute: selective_op'" \
  "$plansim" run "$bad/scenario/selective_op_materialised.yaml"
# Activation offload: fewer layers than the model's (Megatron-Core's check), not under full recompute, >= 0;
# a host link of a positive rate.
expect_stderr "offload_all_layers.yaml:6:[0-9]+: activation_offload_layers 4 must be fewer than the model's 4 layers" \
  "$plansim" run "$bad/scenario/offload_all_layers.yaml"
expect_stderr "offload_full_recompute.yaml:6:[0-9]+: 'activation_offload_layers' is modelled with recompute none, selective or selective_op, not full" \
  "$plansim" run "$bad/scenario/offload_full_recompute.yaml"
expect_stderr "offload_negative.yaml:6:[0-9]+: 'activation_offload_layers'" "$plansim" run "$bad/scenario/offload_negative.yaml"
expect_stderr "host_link_zero.yaml:[0-9]+:[0-9]+: 'host_link'" "$plansim" topo "$bad/topology/host_link_zero.yaml"
# servers_per_domain (a job's placement on NVLink domains): on single-server domains, or past the domain.
expect_stderr "servers_per_domain_single_server.yaml:3:21: 'servers_per_domain' places a job on NVLink domains that span servers; topology 'dgx-h100' has one server per NVLink domain" \
  "$plansim" run "$bad/scenario/servers_per_domain_single_server.yaml"
expect_stderr "servers_per_domain_huge.yaml:3:21: 'servers_per_domain' must be a whole number from 1 to 18" \
  "$plansim" run "$bad/scenario/servers_per_domain_huge.yaml"
expect_stderr "'channels' must be an integer from 1 to 64, got 1,000,000,000" \
  "$plansim" collective --topology "$h100" --nodes 1 -b 8 -e 8 --calibration "$bad/calibration/channels_huge.yaml"
expect_stderr "is larger than 2 MiB, the cap on input files" "$plansim" topo /dev/zero
expect_bad "$plansim" topo /dev/zero
expect_bad "$plansim" run "$bad/scenario/topology_devzero.yaml"
expect_stderr "micro-batches per iteration .* is more than 65,536, the cap" "$plansim" run "$bad/scenario/micro_batches_cap.yaml"
expect_stderr "aliases here expand to more than 1000000 values" "$plansim" topo "$bad/topology/alias_bomb.yaml"
expect_bad "$plansim" search "$good" --gpus 1073741824
expect_stderr "^plansim: --gpus: must be an integer from 1 to 131,072, got 1,073,741,824$" "$plansim" search "$good" --gpus 1073741824
expect_bad "$plansim" sweep "$good" --vary parallel.dp=1,2,3,4,5,6,7,8,9,10 --vary parallel.tp=1,2,3,4,5,6,7,8,9,10 \
  --vary parallel.pp=1,2,3,4,5,6,7,8,9,10 --vary training.micro_batch=1,2,3,4,5,6,7,8,9,10 --vary parallel.cp=1,2,3,4,5,6,7,8,9,10,11
expect_bad "$plansim" collective --topology "$h100" --nodes 1 -b 1 -e 1G -f 1.0001

# Hang class: -f 1.5 from 1 byte never grew (floor(1 × 1.5) = 1); now every row is larger than the last.
expect_exit 0 timeout 10 "$plansim" collective --topology "$h100" --nodes 1 -b 1 -e 8 -f 1.5
expect_stdout '^ +6 +1 +float' "$plansim" collective --topology "$h100" --nodes 1 -b 1 -e 8 -f 1.5  # 1 2 3 4 6

# Exit 70 class, now exit 2: non-scalar keys, a scalar document with --set, NaN/inf, an unchecked comm_slowdown.
expect_stderr "nonscalar_key.yaml:1:2: a key must be a plain word or number, not a list$" "$plansim" topo "$bad/topology/nonscalar_key.yaml"
expect_stderr "null_key.yaml:1:3: a key must be a plain word or number, not a mapping$" "$plansim" topo "$bad/topology/null_key.yaml"
expect_bad "$plansim" run "$bad/scenario/scalar_document.yaml" --set model.layers=2
expect_stderr "scalar_document.yaml:1:1: the scenario must be a mapping" "$plansim" run "$bad/scenario/scalar_document.yaml" --set model.layers=2
expect_stderr "'comm_slowdown' must be a number from 0 to 100, got -0.5" "$plansim" run "$bad/scenario/comm_slowdown_negative.yaml"
expect_stderr "'comm_slowdown' must be a finite number, got '.nan'" "$plansim" run "$bad/scenario/comm_slowdown_nan.yaml"
expect_stderr "'weight_bytes' must be a finite number, got '\+.inf'" "$plansim" run "$bad/scenario/weight_bytes_inf.yaml"
expect_bad "$plansim" run "$seed" --set 'model={layers: 4, layers: 8}'
expect_bad "$plansim" run "$seed" --set training.optimizer_bytes=.nan
expect_bad "$plansim" run "$seed" --set 'parallel.order=[tp, [cp], ep, dp, pp]'
expect_bad "$plansim" run "$seed" --set '{[x]: 1}=2'
expect_bad "$plansim" run "$seed" --set model.seq_len=99999999999999
expect_bad "$plansim" run "$seed" --set model.hidden=4611686018427387904

# Units: the range is checked after the unit multiplies.
expect_stderr "rate '1e300 GB/s' is out of range: rate must be from 1 B/s to 1 PB/s" "$plansim" topo "$bad/topology/bandwidth_inf.yaml"
expect_stderr "time '2e6 s' is out of range" "$plansim" topo "$bad/topology/latency_over_range.yaml"
expect_stderr "'optimizer_bytes' must be a finite number, got '.nan'" "$plansim" run "$bad/scenario/optimizer_bytes_nan.yaml"
expect_bad "$plansim" validate --sim "$src/tests/data/validate/sim.json" --measured "$bad/report_timings/duration_nan.json"
expect_bad "$plansim" validate --sim "$src/tests/data/validate/sim.json" --measured "$src/tests/data/validate/measured_close.json" --tolerance nan
expect_stderr "^plansim: --tolerance: must be a finite number, got 'nan'$" \
  "$plansim" validate --sim "$src/tests/data/validate/sim.json" --measured "$src/tests/data/validate/measured_close.json" --tolerance nan
expect_bad "$plansim" lint "$good" --threshold bubble_overhead=nan
expect_bad "$plansim" lint "$good" --threshold bubble_overhead=inf

# Time overflow (int64 ps past ~9.2e6 s): an error, not undefined behaviour and a wrong figure.
expect_bad "$plansim" run "$seed" --set compute.matmul_tflops=1e-12
expect_stderr "passed 9.2e\+06 s \(106 days\), the range of the simulated clock" "$plansim" run "$seed" --set compute.matmul_tflops=1e-12

# Integer truncation/overflow that passed validation.
expect_stderr "global_batch' must be an integer from 1 to 16,777,216, got 4,294,967,312" "$plansim" run "$bad/scenario/global_batch_wraps.yaml"
expect_stderr "'cp' must be an integer from 1 to 131,072, got 536,870,914" "$plansim" run "$bad/scenario/cp_wraps_world.yaml"
expect_stderr "tp·pp·dp·cp = 65536·65536·65536·65536 is more than 131,072 GPUs" "$plansim" run "$bad/scenario/world_overflow.yaml"
expect_stderr "'stage_layers' must be an integer from 0 to 4,096, got 2,147,483,647" "$plansim" run "$bad/scenario/stage_layers_overflow.yaml"

# Silently ignored input: duplicate keys and a second document, both positions.
expect_stderr "duplicate_key.yaml:5:3: duplicate key 'gpus' \(first at line 4, column 3\)" "$plansim" topo "$bad/topology/duplicate_key.yaml"
expect_stderr "multi_document.yaml:9:1: a second YAML document starts here \(after '---'; the first began at line 1, column 1\)" \
  "$plansim" topo "$bad/topology/multi_document.yaml"

# Bad input that exited 0.
expect_bad "$plansim" sweep "$src/tests/data/topo/syntax.yaml" --vary training.micro_batch=1,2
expect_bad "$plansim" plot bubble /no/such.yaml --out "$tmp/b.svg"
expect_stderr "^/no/such.yaml: cannot open file: no such file" "$plansim" plot bubble /no/such.yaml --out "$tmp/b.svg"
expect_bad "$plansim" plot tp-placement "$seed" --topology /no/such.yaml --out "$tmp/b.svg"

# Bad numbers on the command line: one line, the option named, the range stated.
for args in "--gpus -8" "--gpus 0" "--top -1" "--top 0" "--max-plans -1" "-j -1" "-j 100000" "--gpus 8.5" "--gpus 1e3"; do
  # shellcheck disable=SC2086
  expect_bad "$plansim" search "$good" $args
done
expect_stderr "^plansim: --top: must be an integer from 1 to 1,000,000, got -1$" "$plansim" search "$good" --top -1
expect_bad "$plansim" search "$good" --only parallel.zero=7
expect_stderr "^--only parallel.zero=7: no plan the search tries has parallel.zero=7 \(it tries 0, 1, 3\)$" \
  "$plansim" search "$good" --only parallel.zero=7
expect_bad "$plansim" search "$good" --only x
expect_stderr "^--only x: --only must look like key.path=v1,v2" "$plansim" search "$good" --only x
expect_bad "$plansim" search "$good" --only parallel.nope=1
for args in "--nodes 0" "--nodes 1e9" "--nodes -1" "--gpus 0" "--harness pytorch" "--harness" "-f 1" "-f nan" "-f inf" "-f 0.5" "-b -1" "-e 1e300" "-e 2P" "-b 2G -e 1K" "-b abc"; do
  # shellcheck disable=SC2086
  expect_bad "$plansim" collective --topology "$h100" $args
done
expect_stderr "^plansim: --nodes: must be an integer from 1 to 131,072, got '0'|^plansim: --nodes: must be an integer from 1 to 131,072, got 0$" \
  "$plansim" topo "$h100" --nodes 0
expect_bad "$plansim" topo "$h100" --nodes 0
expect_bad "$plansim" collective --topology "$h100" --nodes 1 --gpus 9
expect_bad "$plansim" collective --topology "$h100" --nodes 1 --gpus 1 --op send_recv
expect_bad "$plansim" sweep "$good" --vary training.micro_batch=1 -j -1
expect_bad "$plansim" lint "$good" -j -3
expect_bad "$plansim" plot dp-scaling "$seed" --batches abc --out "$tmp/d.svg"
expect_bad "$plansim" plot dp-scaling "$seed" --batches 8,99999999999999999999 --out "$tmp/d.svg"
expect_bad "$plansim" run "$seed" --trace-ranks 99999999999

# Wording: CLI11's errors are one line; an unknown key near a required one names the unknown key.
expect_bad "$plansim" run
expect_bad "$plansim" --no-such-flag
expect_bad "$plansim" run "$seed" --no-such-flag
expect_bad "$plansim" collective --topology
expect_stderr "layerz.yaml:3:9: unknown key 'layerz' in model \(did you mean 'layers'\? model requires it\)$" \
  "$plansim" run "$bad/scenario/layerz.yaml"
expect_stderr "unknown_key_near_required.yaml:4:3: unknown key 'gpuz' in node \(did you mean 'gpus'\? node requires it\)$" \
  "$plansim" topo "$bad/topology/unknown_key_near_required.yaml"
expect_stderr "^$src/topologies: is a directory, not a file$" "$plansim" topo "$src/topologies"
expect_bad "$plansim" topo "$src/topologies"
expect_bad "$plansim" run "$src/scenarios"
expect_bad "$plansim" calibrate "$src/tests"
expect_bad "$plansim" collective --compare "$src/validate/nccl"
expect_stderr "bad_op.yaml:7:9: unknown collective 'all_reduse'" "$plansim" collective --compare "$src/tests/data/nccl_compare/bad_op.yaml"

# Nothing is lost: bad input never writes (or half-writes) an output file.
rm -f "$tmp/never.json" "$tmp/never.csv"
expect_bad "$plansim" run "$bad/scenario/layerz.yaml" --json "$tmp/never.json"
expect_bad "$plansim" sweep "$bad/scenario/layerz.yaml" --vary training.micro_batch=1,2 --csv "$tmp/never.csv"
if [ -e "$tmp/never.json" ] || [ -e "$tmp/never.csv" ]; then echo "FAIL: bad input wrote an output file"; fails=$((fails + 1)); else passes=$((passes + 1)); fi
expect_bad "$plansim" run "$seed" --json /no/such/dir/out.json
expect_bad "$plansim" run "$seed" --json "$src/tests"
