# plansim validate: exit 0 within the tolerance, 1 beyond it, 2 for bad input (file:line:col).
d="$src/tests/data/validate"
expect_exit 0 "$plansim" validate --sim "$d/sim.json" --measured "$d/measured_close.json"
# gemm errors +10 % and -5 % -> median 7.50 %; end to end (1.05 - 1.0) / 1.0 = +5.00 %.
expect_stdout '^gemm +2 +7\.50 +10\.00' "$plansim" validate --sim "$d/sim.json" --measured "$d/measured_close.json"
expect_stdout '^end-to-end +1 +\+5\.00' "$plansim" validate --sim "$d/sim.json" --measured "$d/measured_close.json"
expect_exit 1 "$plansim" validate --sim "$d/sim.json" --measured "$d/measured_close.json" --tolerance 0.04
expect_exit 1 "$plansim" validate --sim "$d/sim.json" --measured "$d/measured_far.json"
expect_stdout '^end-to-end +1 +-30\.00' "$plansim" validate --sim "$d/sim.json" --measured "$d/measured_far.json"
expect_exit 0 "$plansim" validate --sim "$d/sim.json" --measured "$d/measured_far.json" --tolerance 0.5
expect_exit 2 "$plansim" validate --sim "$d/sim.json" --measured "$d/bad_class.json"
expect_stderr 'bad_class\.json:3:[0-9]+: .*class' "$plansim" validate --sim "$d/sim.json" --measured "$d/bad_class.json"
expect_exit 2 "$plansim" validate --sim "$d/sim.json" --measured "$d/no_such_file.json"
expect_exit 2 "$plansim" validate --sim "$d/sim.json"
expect_exit 2 "$plansim" validate --sim "$d/sim.json" --measured "$d/measured_close.json" --tolerance -1
