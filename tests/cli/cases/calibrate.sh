# plansim calibrate: fits from bench JSON, bad input -> file:line:col and exit 2.
d="$src/tests/data/calibrate"
expect_exit 0 "$plansim" calibrate "$d/synthetic_all_reduce.json" "$d/synthetic_gemm.json"
# Exact synthetic data: α = 20 us, bus bandwidth 100 GB/s; GEMM e_max 0.75, F_half 50 GFLOP.
expect_stdout 'latency: "20 us"' "$plansim" calibrate "$d/synthetic_all_reduce.json"
expect_stdout 'bus_bandwidth: "100 GB/s"' "$plansim" calibrate "$d/synthetic_all_reduce.json"
expect_stdout 'max_efficiency: 0\.7500' "$plansim" calibrate "$d/synthetic_gemm.json"
expect_stdout 'half_saturation: "50 GFLOP"' "$plansim" calibrate "$d/synthetic_gemm.json"
expect_exit 0 "$plansim" calibrate "$d/synthetic_gemm.json" -o "$tmp/profile.yaml"
expect_exit 2 "$plansim" calibrate "$d/bad_row.json"
expect_stderr 'bad_row\.json:4:[0-9]+: .*nranks' "$plansim" calibrate "$d/bad_row.json"
expect_stderr 'bad_syntax\.json:2:15: ' "$plansim" calibrate "$d/bad_syntax.json"
expect_exit 2 "$plansim" calibrate "$d/no_such_file.json"
expect_exit 2 "$plansim" calibrate
