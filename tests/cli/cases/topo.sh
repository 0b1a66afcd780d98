# plansim topo: describe shipped topologies; every malformed-input class -> one file:line:col line, exit 2.
d="$src/tests/data/topo"

# The README quick start.
expect_exit 0 "$plansim" topo "$src/topologies/dgx-h100.yaml" --nodes 4
expect_stdout '^topology dgx-h100: 32 GPUs \(H100-SXM-80GB\), 4 servers' "$plansim" topo "$src/topologies/dgx-h100.yaml" --nodes 4
expect_stdout 'bisection bandwidth: 800\.0 GB/s' "$plansim" topo "$src/topologies/dgx-h100.yaml" --nodes 4
expect_stdout 'same server +n0\.gpu0 -> n0\.gpu1 +2 hops +0\.500 us' "$plansim" topo "$src/topologies/dgx-h100.yaml" --nodes 4
expect_stdout '"GBps": 800\.0' "$plansim" topo "$src/topologies/dgx-h100.yaml" --nodes 4 --json -
expect_stdout '^digraph "dgx-h100"' "$plansim" topo "$src/topologies/dgx-h100.yaml" --nodes 1 --dot -
expect_stdout 'collapsed: 16 of 3072' "$plansim" topo "$src/topologies/llama3-cluster.yaml" --dot -
expect_stdout 'spine +128 switches +7\.00:1' "$plansim" topo "$src/topologies/llama3-cluster.yaml"
expect_stdout 'same NVLink domain' "$plansim" topo "$src/topologies/gb200-nvl72.yaml"
for f in "$src"/topologies/*.yaml; do expect_exit 0 "$plansim" topo "$f"; done
expect_exit 0 "$plansim" topo "$d/good.yaml"

# Bad input: one line, file:line:col, exit 2.
expect_exit 2 "$plansim" topo "$d/syntax.yaml"
expect_stderr "^$d/syntax.yaml:5:7: YAML syntax error" "$plansim" topo "$d/syntax.yaml"
expect_exit 2 "$plansim" topo "$d/unknown_key.yaml"
expect_stderr "^$d/unknown_key.yaml:5:3: unknown key 'nvswich' in node \(did you mean 'nvswitch'\?\)$" "$plansim" topo "$d/unknown_key.yaml"
expect_exit 2 "$plansim" topo "$d/wrong_type.yaml"
expect_stderr "^$d/wrong_type.yaml:4:9: 'gpus' must be an integer from 1 to 1,024, got 'eight'$" "$plansim" topo "$d/wrong_type.yaml"
expect_exit 2 "$plansim" topo "$d/missing_field.yaml"
expect_stderr "^$d/missing_field.yaml:10:5: node.nics is missing the required key 'bandwidth'$" "$plansim" topo "$d/missing_field.yaml"
expect_exit 2 "$plansim" topo "$d/zero_size.yaml"
expect_stderr "^$d/zero_size.yaml:1:8: 'nodes' must be an integer from 1 to 131,072, got 0$" "$plansim" topo "$d/zero_size.yaml"
expect_exit 2 "$plansim" topo "$d/unknown_gpu.yaml"
expect_stderr "^$d/unknown_gpu.yaml:3:8: unknown GPU model 'H100-SXM-80G' \(did you mean 'H100-SXM-80GB'\?\)$" "$plansim" topo "$d/unknown_gpu.yaml"
expect_exit 2 "$plansim" topo "$d/bad_affinity.yaml"
expect_stderr "^$d/bad_affinity.yaml:11:37: NIC index 9 is out of range: the server has NICs 0..7$" "$plansim" topo "$d/bad_affinity.yaml"
expect_exit 2 "$plansim" topo "$d/bad_pcie_split.yaml"
expect_stderr "^$d/bad_pcie_split.yaml:7:22: 'gpus_per_switch' \(3\) must divide the GPUs per server \(8\)$" "$plansim" topo "$d/bad_pcie_split.yaml"
expect_exit 2 "$plansim" topo "$d/disconnected.yaml"
expect_stderr "^$d/disconnected.yaml:15:3: n1.gpu0 cannot reach n0.gpu0" "$plansim" topo "$d/disconnected.yaml"
expect_exit 2 "$plansim" topo "$d/no_such_file.yaml"
expect_stderr "^$d/no_such_file.yaml: cannot open file" "$plansim" topo "$d/no_such_file.yaml"
expect_exit 2 "$plansim" topo "$src/topologies/dgx-h100.yaml" --nodes 0
expect_exit 2 "$plansim" topo
