#!/bin/bash
# The CPU runs of issue #20 on a lent GPU machine's host (16 cores), in one device call that
# fits the session's device time: each step gets the time left of a budget (END seconds, 540
# unless set) and is skipped when under 40 s are left, so the results written before it come
# back whatever happens. Each result goes to $OUT (or ./lent-out) as it comes, at most eight
# files (what a device call returns): the machine's environment; bench_native on all threads
# (one-thread and all-thread columns, reused outputs, the bfloat16 row); where one thread's time
# goes for gelu, erf and tanh (`--overhead`, as AVX-512 and as AVX2); the two-loop passes
# (log, softplus, tanh) on the AMD loops (`--loops permutes`), which Intel processors run only
# for log and softplus by default; the run as an AVX2 machine; on 2 threads (the 1 -> 2
# scaling); the nine other kernels; the float64 first passes against the float32 kernel on
# all 2^32 inputs with this machine's compiler, for the functions named (comma-separated; sin,
# cos, tanh if none) and the build variants after them (avx512 if none).
# On 2026-11-27 (16-core Intel Xeon, tree f1cf3c9) the five benchmark steps took 1-2.5 minutes
# each and a proof of one function on one variant 33 s.
# Usage (in the repository root): bash benchmarks/lent_machine.sh [FUNCS [VARIANTS]]
# python-flint and gmpy2 are not on that machine: carry their wheels in .whl (named in the
# call's `carry`; /work/.library/device/README.md says how to download them).
# NO_WHEELS=1 skips their install (a machine that has them).
set -u
OUT=${OUT:-lent-out}; mkdir -p "$OUT"
if [ -z "${NO_WHEELS:-}" ] && ls .whl/*.whl > /dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl || exit 1
fi
export PYTHONPATH=src:/tmp/site PYTHONUNBUFFERED=1 ULPLAB_CACHE_DIR=/tmp/ulplab-cache
START=$(date +%s); END=${END:-540}
left() { echo $(( END - ($(date +%s) - START) )); }
step() {
  local t; t=$(left)
  if [ "$t" -lt 40 ]; then echo "SKIP (${t}s left): $*"; return; fi
  echo "== $(date -u +%T), ${t}s left: $*"
  timeout "$t" "$@" 2>&1 | grep -v '^\s*$' | tail -45
}
{
  date -u; nproc; uname -r
  lscpu | grep -E 'Model name|^Model:|^CPU family|^CPU\(s\)|Thread|Socket|L2|L3' | cut -c1-200
  grep -o -w -E 'avx512f|avx512_bf16|avx512_fp16|amx_tile|avx2|fma' /proc/cpuinfo | sort | uniq -c
  gcc --version | head -1
  python3 -c 'import numpy, torch; print("numpy", numpy.__version__, "torch", torch.__version__)'
  cat /sys/kernel/mm/transparent_hugepage/enabled /sys/kernel/mm/transparent_hugepage/defrag 2>&1
} > "$OUT/env.txt" 2>&1
cat "$OUT/env.txt"
AS_AVX2=(env ULPLAB_MAX_ISA=avx2 ATEN_CPU_CAPABILITY=avx2
         "NPY_DISABLE_CPU_FEATURES=X86_V4 AVX512_ICL AVX512_SPR")
B=benchmarks/bench_native.py
step python3 $B --runs 5 --reused-output --json "$OUT/avx512-T16.json"
# where one thread's time goes (the pass alone, the runner, fresh and reused outputs, 2^12 to
# 2^24) for the kernels still above their peer on Intel (gelu, tanh) and erf beside them, as
# AVX-512 and as AVX2, merged into one file (about 5 s each on the EPYC VM)
step python3 $B --overhead --funcs gelu,erf,tanh --runs 5 --json /tmp/overhead-avx512.json
step "${AS_AVX2[@]}" python3 $B --overhead --funcs gelu,erf,tanh --runs 5 \
  --json /tmp/overhead-avx2.json
python3 -c 'import json, sys, os
d = {v: json.load(open(f"/tmp/overhead-{v}.json")) for v in ("avx512", "avx2")
     if os.path.exists(f"/tmp/overhead-{v}.json")}
json.dump(d, open(sys.argv[1], "w"), indent=1)' "$OUT/overhead.json"
step python3 $B --runs 5 --reused-output --funcs log,softplus,tanh --loops permutes \
  --json "$OUT/avx512-T16-permutes.json"
step "${AS_AVX2[@]}" python3 $B --runs 5 --reused-output --json "$OUT/as-avx2-T16.json"
step python3 $B --runs 5 --threads 2 --json "$OUT/avx512-T2.json"
step python3 $B --runs 5 --funcs exp2,log2,expm1,log1p,tan,rsqrt,gelu_tanh,tanh_grad,gelu_grad \
  --json "$OUT/avx512-T16-others.json"
# shellcheck disable=SC2046
step python3 benchmarks/verify_native.py --fast64 --variants "${2:-avx512}" --threads "$(nproc)" \
  --record "$OUT/proofs.json" $(echo "${1:-sin,cos,tanh}" | tr , ' ')
echo "done in $(( $(date +%s) - START )) s"
