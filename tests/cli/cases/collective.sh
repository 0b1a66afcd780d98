# plansim collective: nccl-tests layout, JSON fields, K/M/G sizes, bad input -> exit 2 with a message.
t="$src/topologies/hgx-h200.yaml"
expect_exit 0 "$plansim" collective --topology "$t" --nodes 1 --op all_reduce --gpus 8 -b 8 -e 8G -f 2
# Header: nccl-tests' columns plus algorithm and protocol; 31 sizes from 8 B to 8 GiB.
expect_stdout '^# +size +count +type +redop +root +time +algbw +busbw +algorithm +protocol$' \
  "$plansim" collective --topology "$t" --nodes 1 --gpus 8 -b 8 -e 8G -f 2
# 8 GiB: NVLS, algbw ~275 GB/s (nccl-tests#212; the topology's fitted hgx-h200 profile gives ~270), busbw 460-499.
expect_stdout '^ +8589934592 +2147483648 +float +sum +-1 +[0-9.]+ +2[67][0-9]\.[0-9]+ +4[6-9][0-9]\.[0-9]+ +nvls +Simple$' \
  "$plansim" collective --topology "$t" --nodes 1 --gpus 8 -b 8 -e 8G -f 2
rows=$("$plansim" collective --topology "$t" --nodes 1 --gpus 8 -b 8 -e 8G -f 2 | grep -vc '^#')
if [ "$rows" -eq 31 ]; then passes=$((passes + 1)); else echo "FAIL: expected 31 rows, got $rows"; fails=$((fails + 1)); fi
# K/M/G are powers of 1024, as in nccl-tests.
expect_stdout '^ +1048576 ' "$plansim" collective --topology "$t" --nodes 1 --gpus 8 -b 1M -e 1M
expect_stdout '^ +32768 +16384 +half ' "$plansim" collective --topology "$t" --nodes 1 --gpus 8 -b 32K -e 32K --dtype half
# Rooted and non-reducing ops fill redop/root as nccl-tests does.
expect_stdout ' none +0 .* chain ' "$plansim" collective --topology "$t" --nodes 1 --op broadcast --gpus 8 -b 1M -e 1M --algo chain
expect_stdout ' direct ' "$plansim" collective --topology "$t" --nodes 2 --op alltoall --gpus 16 -b 1M -e 1M
# JSON rows carry every documented field.
for k in bytes count type time_us algbw_GBps busbw_GBps algorithm protocol; do
  expect_stdout "\"$k\":" "$plansim" collective --topology "$t" --nodes 1 --gpus 8 -b 1M -e 2M --json -
done
# Named algorithm and protocol are honoured.
expect_stdout ' ring +LL128$' "$plansim" collective --topology "$t" --nodes 1 --gpus 8 -b 1M -e 1M --algo ring --proto LL128
# Bad input: exit 2 with a message naming the flag.
expect_exit 2 "$plansim" collective --topology "$t" --op allsum
expect_stderr "^--op: unknown collective 'allsum'" "$plansim" collective --topology "$t" --op allsum
expect_exit 2 "$plansim" collective --topology "$t" --algo spiral
expect_stderr "unknown algorithm 'spiral'" "$plansim" collective --topology "$t" --algo spiral
expect_stderr "^plansim: --minbytes: '8X' is not a size" "$plansim" collective --topology "$t" -b 8X
expect_stderr "algorithm 'nvls' cannot run all_gather" "$plansim" collective --topology "$t" --nodes 1 --op all_gather --algo nvls -b 1M -e 1M
expect_stderr "^--gpus: 64 GPUs asked" "$plansim" collective --topology "$t" --nodes 1 --gpus 64
expect_exit 2 "$plansim" collective --topology "$t" --calibration "$src/tests/data/coll/bad_calibration.yaml"
expect_stderr "bad_calibration.yaml:2:3: .*nvlink" "$plansim" collective --topology "$t" --calibration "$src/tests/data/coll/bad_calibration.yaml"
# --compare prints predicted vs published and the mean errors.
expect_stdout '^overall mean \|error\|' "$plansim" collective --compare "$src/validate/nccl/stas00_mlengineering.yaml"
# --compare also reads nccl-tests logs as printed (stdout, mpirun/srun logs) and their -J JSON; the system is
# --topology, the node count the log's unless --nodes; errors per size and per size band.
n="$src/tests/data/nccl_tests"
h100="$src/topologies/dgx-h100.yaml"
expect_exit 0 "$plansim" collective --compare "$n/single_node_allreduce.log" --topology "$h100"
expect_stdout '^== .*single_node_allreduce\.log:3 all_reduce .*8 ranks on 1 node \(dgx-h100-01\)' \
  "$plansim" collective --compare "$n/single_node_allreduce.log" --topology "$h100"
expect_stdout '^  1-64 MiB +6 ' "$plansim" collective --compare "$n/single_node_allreduce.log" --topology "$h100"
expect_stdout '^  >= 64 MiB +5 ' "$plansim" collective --compare "$n/single_node_allreduce.log" --topology "$h100"
expect_stdout 'predicted on dgx-h100 \(2 nodes\), algo ring' \
  "$plansim" collective --compare "$n/mpirun_2node_allgather.log" --topology "$h100"
expect_stdout 'reduce_scatter \(its args\[0\]\)' "$plansim" collective --compare "$n/reduce_scatter.json" \
  --topology "$src/topologies/hgx-h200.yaml"
expect_stdout 'excluded: #wrong = 1024' "$plansim" collective --compare "$n/wrong_allreduce.log" --topology "$h100"
expect_stdout 'all_to_all \(--op\)' "$plansim" collective --compare "$n/mpirun_2node_allgather.log" --topology "$h100" \
  --op alltoall
expect_stdout 'calibration none \(model defaults\)' "$plansim" collective --compare "$n/single_node_allreduce.log" \
  --topology "$h100" --calibration none
expect_exit 2 "$plansim" collective --compare "$n/single_node_allreduce.log"
expect_stderr '^--topology: give --topology FILE .* all_reduce on 8 ranks over 1 node\(s\) \(dgx-h100-01\) of NVIDIA H100' \
  "$plansim" collective --compare "$n/single_node_allreduce.log"
expect_stderr 'the log ran 16 ranks, but topology .dgx-h100. with 1 node\(s\) has 8 GPUs: give --nodes' \
  "$plansim" collective --compare "$n/mpirun_2node_allgather.log" --topology "$h100" --nodes 1
expect_stderr 'truncated_allreduce\.log:35: a result row of 6 values' \
  "$plansim" collective --compare "$n/truncated_allreduce.log" --topology "$h100"
expect_exit 2 "$plansim" collective --compare "$n/garbage_allreduce.log" --topology "$h100"
expect_stderr '^--gpus: 4 GPUs given, but the run at .*lists 8 ranks' \
  "$plansim" collective --compare "$n/single_node_allreduce.log" --topology "$h100" --gpus 4
# ... and plansim-hw bench nccl JSON, one run per (op, algorithm, ranks).
expect_stdout '^== .*synthetic_all_reduce\.json:12:3 all_reduce \(its rows. op\): 8 ranks on 1 node, Synthetic GPU' \
  "$plansim" collective --compare "$src/tests/data/calibrate/synthetic_all_reduce.json" --topology "$h100"
expect_stderr '^--op: a plansim-hw bench file names its op and ranks' \
  "$plansim" collective --compare "$src/tests/data/calibrate/synthetic_all_reduce.json" --topology "$h100" --op all_reduce
# Across servers, out of sample (no profile was fitted on them): the 3x8 A100 nccl-tests peak (4 HDR per server)
# and NVIDIA's DGX A100 ring statement (8 HDR per server) are within issue 12's 15 % at >= 1 MiB. Both are
# A100 points from one profile: a gate on the model across servers, not a fit.
for tbl in nccltests_a100_3node_hdr nvidia_dgx_a100_8hdr_statement; do
  err=$("$plansim" collective --compare "$src/validate/nccl/$tbl.yaml" | sed -n 's/^  mean |error|: >= 1 MiB \([0-9.]*\) %.*/\1/p')
  if [ -n "$err" ] && awk -v e="$err" 'BEGIN { exit !(e <= 15) }'; then passes=$((passes + 1));
  else echo "FAIL: $tbl: mean |busbw error| at >= 1 MiB '$err' % (want <= 15)"; fails=$((fails + 1)); fi
done
# Inside one DGX H100, out of sample (the topology names no profile; the Hopper constants come from other
# statements): the ring and NVLS by GPU count of NVIDIA/nccl#1455 and NVIDIA's 476 GB/s (nccl-tests#290) are
# within issue 12's 10 % for one server at >= 1 MiB.
err=$("$plansim" collective --compare "$src/validate/nccl/h100_nccl_issue_points.yaml" |
  sed -n 's/^overall mean |error| .*: >= 1 MiB \([0-9.]*\) % over 15 rows.*/\1/p')
if [ -n "$err" ] && awk -v e="$err" 'BEGIN { exit !(e <= 10) }'; then passes=$((passes + 1));
else echo "FAIL: h100_nccl_issue_points: mean |busbw error| at >= 1 MiB '$err' % over 15 rows (want <= 10)"; fails=$((fails + 1)); fi
# In-network reduction (SHARP): the dgx-h100-sharp fabric's switches reduce, so `auto` runs NCCL's multi-node
# NVLS over CollNet at 1 GiB on 16 servers; on dgx-h100 (no SHARP) naming it is an error that says why.
sharp="$src/topologies/dgx-h100-sharp.yaml"
expect_stdout ' nvls_collnet +Simple$' "$plansim" collective --topology "$sharp" --nodes 16 -b 1G -e 1G
expect_stdout ' collnet_direct +Simple$' "$plansim" collective --topology "$sharp" --nodes 16 -b 1G -e 1G --algo collnet_direct
expect_exit 2 "$plansim" collective --topology "$h100" --nodes 2 -b 1M -e 1M --algo collnet_direct
# PAT: NCCL's all-gather / reduce-scatter at one GPU per server, chosen by auto for small sizes (a ring for large);
# on servers of 8 GPUs naming it is an error that says what it needs.
one="$src/tests/data/topo/one_gpu_per_server.yaml"
expect_stdout '^ +65536 .* pat +Simple$' "$plansim" collective --topology "$one" --op all_gather -b 64K -e 64K
expect_stdout '^ +65536 .* pat +Simple$' "$plansim" collective --topology "$one" --op reduce_scatter -b 64K -e 64K
expect_stdout '^ +1073741824 .* ring +Simple$' "$plansim" collective --topology "$one" --op all_gather -b 1G -e 1G
expect_exit 2 "$plansim" collective --topology "$h100" --nodes 2 --op all_gather -b 1M -e 1M --algo pat
expect_stderr "algorithm 'pat' cannot run all_gather .*each in a server \(NVLink domain\) of its own" "$plansim" collective --topology "$h100" --nodes 2 --op all_gather -b 1M -e 1M --algo pat
expect_stderr "cannot run all_reduce on this group of 16 GPUs: it needs .*sharp: true" \
  "$plansim" collective --topology "$h100" --nodes 2 -b 1M -e 1M --algo nvls_collnet
