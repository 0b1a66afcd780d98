#!/usr/bin/env python3
"""Writes the nccl-tests fixtures of this folder: synthetic logs in the layouts nccl-tests prints
(src/util.cu and common.cu of NVIDIA/nccl-tests; older 2.x layouts as seen in its issues). The numbers are
not measurements: time = a + size * factor / B with a per-size wobble, formatted as nccl-tests formats them.
Run it from anywhere; it rewrites the files next to it."""
import math, os

HERE = os.path.dirname(os.path.abspath(__file__))

def float_str(v, width):  # nccl-tests' getFloatStr
    power = 0
    val = 1
    while v >= val:
        power += 1
        val *= 10
    if power < width - 2: return "%*.2f" % (width, v)
    if power < width - 1: return "%*.1f" % (width, v)
    if power < width + 1: return "%*.0f" % (width, v)
    return "%*.1e" % (width, v)

FACTOR = {"all_reduce": lambda n: 2 * (n - 1) / n, "all_gather": lambda n: (n - 1) / n,
          "reduce_scatter": lambda n: (n - 1) / n, "alltoall": lambda n: (n - 1) / n,
          "broadcast": lambda n: 1.0, "reduce": lambda n: 1.0, "sendrecv": lambda n: 1.0}

def timing(op, n, size, a_us, busbw, k):
    f = FACTOR[op](n)
    wobble = 1.0 + 0.03 * math.sin(1.7 * k)
    t = (a_us + size * f / (busbw * 1e3)) * wobble
    alg = size / t / 1e3
    return t, alg, alg * f

def rows(op, n, sizes, a_us, busbw, redop, root, wrong=None, old=False, na=False, inplace_scale=1.01):
    out = []
    for k, s in enumerate(sizes):
        count = s // 4 if op not in ("all_gather", "reduce_scatter", "alltoall") else s // 4 // n
        t, alg, bus = timing(op, n, s, a_us, busbw, k)
        t2, alg2, bus2 = timing(op, n, s, a_us * inplace_scale, busbw / inplace_scale, k + 1)
        if s == 0:
            alg = bus = alg2 = bus2 = 0.0
        w1 = w2 = "0"
        if wrong and s in wrong: w1 = w2 = "%g" % wrong[s]
        if old:
            line = "%12d  %12d  %8s  %6s  " % (s, count, "float", redop)
            line += "  %7s  %6.2f  %6.2f  %5.0e" % (float_str(t, 7), alg, bus, 0.0)
            line += "  %7s  %6.2f  %6.2f  %5.0e" % (float_str(t2, 7), alg2, bus2, 0.0)
        else:
            line = "%12d  %12d  %8s  %6s  %6s" % (s, count, "float", redop, "%6i" % root)
            for tt, aa, bb, ww in ((t, alg, bus, w1), (t2, alg2, bus2, w2)):
                line += ("  %7s  %6s  %6s    N/A" % (float_str(tt, 7), float_str(aa, 6), float_str(bb, 6)) if na else
                         "  %7s  %6s  %6s  %6s" % (float_str(tt, 7), float_str(aa, 6), float_str(bb, 6), ww))
        out.append(line)
    return out

def header_new(prog, nthread, ngpus, lo, hi, devices, version=True):
    out = []
    if version:
        out.append("# nccl-tests version 2.17.6 nccl-headers=22703 nccl-library=22703")
        out.append("# Collective test starting: %s" % prog)
    out.append("# nThread %d nGpus %d minBytes %d maxBytes %d step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 "
               "validation: 1 graph: 0" % (nthread, ngpus, lo, hi))
    out.append("#")
    out.append("# Using devices")
    for r, (host, dev, bus, model) in enumerate(devices):
        out.append("#  Rank %2d Group  0 Pid %6d on %10s device %2d [%s] %s" % (r, 41000 + r, host, dev, bus, model))
    out.append("#")
    out.append("# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place          " % ("", "", "", "", ""))
    out.append("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s " % (
        "size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw", "#wrong"))
    out.append("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s " % (
        "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", ""))
    return out

def footer(body, prog, oob=0):
    busbws = []
    for l in body:
        t = l.split()
        if len(t) >= 13:
            busbws += [float(t[7]), float(t[11])]
    avg = sum(busbws) / len(busbws)
    return ["# Out of bounds values : %d %s" % (oob, "FAILED" if oob else "OK"),
            "# Avg bus bandwidth    : %g " % avg, "#", "# Collective test concluded: %s" % prog, "#", ""]

def pow2(lo, hi):
    s, out = lo, []
    while s <= hi:
        out.append(s)
        s *= 2
    return out

def write(name, lines):
    with open(os.path.join(HERE, name), "w") as f:
        f.write("\n".join(lines) + ("\n" if lines[-1] != "" else ""))

H100 = "NVIDIA H100 80GB HBM3"
buses = ["0000:18:00", "0000:2a:00", "0000:3a:00", "0000:5d:00", "0000:9a:00", "0000:ab:00", "0000:ba:00", "0000:db:00"]

# 1. one node, 8 x H100, newest layout, all_reduce 8 B .. 1 GiB
devs = [("dgx-h100-01", i, buses[i], H100) for i in range(8)]
sizes = pow2(8, 1 << 30)
body = rows("all_reduce", 8, sizes, 22.0, 360.0, "sum", -1)
write("single_node_allreduce.log", header_new("all_reduce_perf", 1, 8, 8, 1 << 30, devs) + body + footer(body, "all_reduce_perf"))

# 2. mpirun --tag-output over 2 nodes x 8 GPUs, all_gather, NCCL INFO lines of several ranks interleaved
devs = [("node-a", i, buses[i], H100) for i in range(8)] + [("node-b", i, buses[i], H100) for i in range(8)]
sizes = pow2(1024, 1 << 28)
body = rows("all_gather", 16, sizes, 35.0, 150.0, "none", -1)
lines = ["+ mpirun -np 16 -H node-a:8,node-b:8 --tag-output -x NCCL_DEBUG=INFO -x NCCL_ALGO=Ring ./build/all_gather_perf -b 1K -e 256M -f 2 -g 1"]
hdr = header_new("all_gather_perf", 1, 1, 1024, 1 << 28, devs)
info = []
for r in range(16):
    host = "node-a" if r < 8 else "node-b"
    info.append("[1,%d]<stdout>:%s:%d:%d [%d] NCCL INFO NCCL_ALGO set by environment to Ring" % (r, host, 41000 + r, 41100 + r, r % 8))
for r in (0, 9, 3):
    host = "node-a" if r < 8 else "node-b"
    info.append("[1,%d]<stdout>:%s:%d:%d [%d] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB ; OOB ibp0:10.0.0.%d<0>" % (r, host, 41000 + r, 41200 + r, r % 8, r))
info.insert(0, "[1,0]<stdout>:node-a:41000:41000 [0] NCCL INFO NCCL version 2.21.5+cuda12.4")
out = lines + ["[1,0]<stdout>:" + l for l in hdr[:-3]]
out += info
out += ["[1,0]<stdout>:" + l for l in hdr[-3:]]
for k, l in enumerate(body):
    out.append("[1,0]<stdout>:" + l)
    if k == 3:
        out.append("[1,12]<stderr>:node-b:41012:41300 [4] NCCL WARN NET/IB : Got completion from peer 10.0.0.1<40212> with status=12 opcode=0 len=0 vendor err 129 (Recv) retrying")
    if k == 6:
        out.append("--------------------------------------------------------------------------")
        out.append("[1,7]<stdout>:node-a:41007:41400 [7] NCCL INFO comm 0x55d0c0 rank 7 nranks 16 cudaDev 7 busId db000 - Init COMPLETE")
out += ["[1,0]<stdout>:" + l for l in footer(body, "all_gather_perf")[:-1]]
write("mpirun_2node_allgather.log", out + [""])

# 3. srun --label over 2 nodes x 4 GPUs, all_reduce, a middle-aged layout (Group, no version line), the binary
#    named only by the shell trace
devs = [("gpu-node-017", i, "0x%02x" % (0x18 + 0x20 * i), "NVIDIA A100-SXM4-80GB") for i in range(4)] + \
       [("gpu-node-018", i, "0x%02x" % (0x18 + 0x20 * i), "NVIDIA A100-SXM4-80GB") for i in range(4)]
sizes = pow2(8, 1 << 27)
body = rows("all_reduce", 8, sizes, 40.0, 80.0, "sum", -1)
hdr = header_new("", 1, 1, 8, 1 << 27, devs, version=False)
out = ["+ srun -l --nodes=2 --ntasks-per-node=4 --gpus-per-node=4 /opt/nccl-tests/build/all_reduce_perf -b 8 -e 128M -f 2 -g 1"]
out += [" 0: " + l for l in hdr]
for r in range(8):
    host = "gpu-node-017" if r < 4 else "gpu-node-018"
    out.append("%2d: %s:%d:%d [%d] NCCL INFO Channel 00/02 :    0   1   2   3   4   5   6   7" % (r, host, 5000 + r, 5100 + r, r % 4))
out += [" 0: " + l for l in body]
out += [" 0: " + l for l in footer(body, "all_reduce_perf")[:2]]
out += ["srun: error: gpu-node-018: task 5: Exited with exit code 0", ""]
write("srun_2node_allreduce.log", out)

# 4. an older 2.x layout: no root column, an `error` column, no Group, no agg iters; 4 x V100
sizes = pow2(1024, 1 << 26)
body = rows("all_reduce", 4, sizes, 12.0, 110.0, "sum", -1, old=True)
out = ["# nThread 1 nGpus 4 minBytes 1024 maxBytes 67108864 step: 2(factor) warmup iters: 5 iters: 20 validation: 1",
       "#", "# Using devices"]
for i in range(4):
    out.append("#   Rank  %d Pid  21837 on dgx1-v100 device  %d [0x%02x] Tesla V100-SXM2-32GB" % (i, i, 0x06 + i))
out += ["#", "#                                                     out-of-place                       in-place",
        "#       size         count    type   redop     time   algbw   busbw  error     time   algbw   busbw  error",
        "#        (B)    (elements)                     (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)"]
out += body
out += ["# Out of bounds values : 0 OK", "# Avg bus bandwidth    : 52.1234 ", "#", ""]
write("old_v2_allreduce.log", out)

# 5. -J JSON of a one-node reduce_scatter (util.cu's writer: %lf doubles, the root as a padded string)

res = []
for k, s in enumerate([0] + pow2(4096, 1 << 28)):
    t, alg, bus = timing("reduce_scatter", 8, s, 20.0, 330.0, k)
    t2, alg2, bus2 = timing("reduce_scatter", 8, s, 20.5, 325.0, k + 1)
    if s == 0: alg = bus = alg2 = bus2 = 0.0
    res.append('{"size":%d,"count":%d,"type":"float","redop":"sum","root":"    -1","out_of_place":{"time":%lf,"alg_bw":%lf,"bus_bw":%lf,"nwrong":0.000000},"in_place":{"time":%lf,"alg_bw":%lf,"bus_bw":%lf,"nwrong":0.000000},"actual_iterations":20,"experiment_name":"reduce_scatter_perf"}'.replace("%lf", "%f") % (s, s // 32, t, alg, bus, t2, alg2, bus2))
devj = ",".join('{"rank":%d,"group":0,"pid":7731,"hostname":"hgx-h200-07","device":%d,"device_hex":"%s","device_info":"NVIDIA H200"}' % (i, i, buses[i]) for i in range(8))
js = ('{"version":1,"start_time":"2025-06-02 10:14:07","args":["./build/reduce_scatter_perf","-b","4K","-e","256M","-f","2","-g","8","-J","rs.json"],'
      '"env":["PATH=\\/usr\\/local\\/bin:\\/usr\\/bin","NCCL_PROTO=Simple","HOME=\\/root"],"nccl_version":22703,'
      '"config":{"nthreads":1,"ngpus":8,"minimum_bytes":4096,"maximum_bytes":268435456,"step_factor":2,"warmup_iters":5,'
      '"iterations":20,"aggregated_iterations":1,"validation":1,"graph":0,"blocking_collectives":"false","parallel_init":"false",'
      '"devices":[' + devj + ']},"results":[' + ",".join(res) + '],"out_of_bounds":{"count":0,"okay":"true"},'
      '"average_bus_bandwidth":{"bandwidth":180.250000,"okay":"unchecked"},"errors":[],"end_time":"2025-06-02 10:14:31"}\n')
with open(os.path.join(HERE, "reduce_scatter.json"), "w") as f:
    f.write(js)

# 6. #wrong != 0 on one row (and Out of bounds values: 1 FAILED)
devs = [("dgx-h100-01", i, buses[i], H100) for i in range(8)]
sizes = pow2(1 << 20, 1 << 24)
body = rows("all_reduce", 8, sizes, 22.0, 360.0, "sum", -1, wrong={1 << 22: 1024})
write("wrong_allreduce.log", header_new("all_reduce_perf", 1, 8, 1 << 20, 1 << 24, devs) + body + footer(body, "all_reduce_perf", oob=1))

# 7. validation off (-c 0): #wrong is N/A; broadcast, root 0
body = rows("broadcast", 8, pow2(1 << 16, 1 << 26), 15.0, 300.0, "none", 0, na=True)
hdr = header_new("broadcast_perf", 1, 8, 1 << 16, 1 << 26, devs)
hdr = [l.replace("validation: 1", "validation: 0") for l in hdr]
write("broadcast_novalidation.log", hdr + body + ["# Out of bounds values : 0 OK", "# Avg bus bandwidth    : 201.3 ", "#", ""])

# 8. truncated: the job was killed while printing a row
body = rows("all_reduce", 8, pow2(8, 1 << 20), 22.0, 360.0, "sum", -1)
cut = body[-1][:body[-1].index("sum") + 16]
write("truncated_allreduce.log", header_new("all_reduce_perf", 1, 8, 8, 1 << 30, devs) + body[:-1] + [cut, ""])

# 9. garbage inside the table
body = rows("all_reduce", 8, pow2(8, 1 << 12), 22.0, 360.0, "sum", -1)
body[5] = body[5][:60] + "  1.2.3" + body[5][67:]
write("garbage_allreduce.log", header_new("all_reduce_perf", 1, 8, 8, 1 << 12, devs) + body + footer(body, "all_reduce_perf"))

# 10. no results: the run failed after the header
out = header_new("all_reduce_perf", 1, 8, 8, 1 << 30, devs)[:13]
out += ["dgx-h100-01:41000:41000 [0] NCCL WARN Cuda failure 'out of memory'",
        "dgx-h100-01: Test NCCL failure common.cu:1005 'unhandled cuda error (run with NCCL_DEBUG=INFO for details)'", ""]
write("failed_allreduce.log", out)

# 10. a log copied from a rendered Markdown page (a GitHub issue): every '# ' was a heading marker and is gone;
#     2 nodes x 8 H100 by mpirun, all_reduce 1 KiB .. 1 GiB
devs = [("node-a", i, buses[i], H100) for i in range(8)] + [("node-b", i, buses[i], H100) for i in range(8)]
body = rows("all_reduce", 16, pow2(1024, 1 << 30), 30.0, 180.0, "sum", -1)
out = ["$ mpirun -np 16 -H node-a:8,node-b:8 ./build/all_reduce_perf -b 1K -e 1G -f 2 -g 1"]
out += [l[2:] if l.startswith("# ") else l.lstrip("#") for l in header_new("all_reduce_perf", 1, 1, 1024, 1 << 30, devs)]
out += body + [l[2:] if l.startswith("# ") else l.lstrip("#") for l in footer(body, "all_reduce_perf")]
write("markdown_copy_2node_allreduce.log", out)

# 11. pdsh / clush: every line of the launching host prefixed "HOST: ", NCCL INFO lines ("HOST:PID:TID ...") among them
body = rows("all_reduce", 16, pow2(1 << 20, 1 << 30), 30.0, 180.0, "sum", -1)
out = ["node-a: " + l for l in header_new("all_reduce_perf", 1, 1, 1 << 20, 1 << 30, devs)]
out.insert(3, "node-a: node-a:41000:41000 [0] NCCL INFO NCCL version 2.23.4+cuda12.6")
out += ["node-a: " + l for l in body + footer(body, "all_reduce_perf")[:-1]] + [""]
write("pdsh_2node_allreduce.log", out)

# 12. kubectl logs --prefix of an MPI job's launcher pod: "[pod/NAME/CONTAINER] " on every line
body = rows("all_gather", 16, pow2(1 << 20, 1 << 28), 35.0, 150.0, "none", -1)
pre = "[pod/nccl-allgather-launcher-x7k2p/mpi-launcher] "
out = [pre + l for l in header_new("all_gather_perf", 1, 1, 1 << 20, 1 << 28, devs) + body + footer(body, "all_gather_perf")[:-1]] + [""]
write("kubectl_prefix_allgather.log", out)
