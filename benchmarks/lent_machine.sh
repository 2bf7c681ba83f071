#!/bin/sh
# The CPU runs of issue #20 on a lent GPU machine's host (16 cores), each result written to $OUT
# (or ./lent-out) as it comes: the machine's environment; bench_native on all threads and on 2
# (the 1 -> 2 scaling); bfloat16 gelu; log, softplus and tanh on the loops of AMD processors, and
# bfloat16 gelu on the scalar lookup; the nine other kernels on all threads; with --full also
# the run as an AVX2 machine and the float64
# first passes against the float32 kernel on all 2^32 inputs with this machine's compiler
# (the functions named after --full, comma-separated; the build variants after them, avx512 if
# none are named).
# Usage: sh benchmarks/lent_machine.sh [--full FUNCS [VARIANTS]]
# python-flint is not on that machine: carry its wheel (and gmpy2's) in .whl and install it to
# /tmp/site first (/work/.library/device/README.md says how).
set -u
OUT=${OUT:-lent-out}; mkdir -p "$OUT"
export PYTHONPATH=src:/tmp/site PYTHONUNBUFFERED=1 ULPLAB_CACHE_DIR=/tmp/ulplab-cache
PY=python3
{
  date -u; nproc; uname -r; lscpu | grep -E 'Model name|^CPU\(s\)|Thread|Socket|L2|L3' | cut -c1-200
  gcc --version | head -1; $PY -c 'import numpy, torch; print("numpy", numpy.__version__, "torch", torch.__version__)'
  cat /sys/kernel/mm/transparent_hugepage/enabled /sys/kernel/mm/transparent_hugepage/defrag 2>&1
} > "$OUT/env.txt" 2>&1
cat "$OUT/env.txt"
D=$(date -u +%F)
$PY benchmarks/bench_native.py --runs 5 --reused-output --json "$OUT/xeon16-avx512-T16-$D.json"
$PY benchmarks/bench_native.py --bfloat16-only --runs 7 --json "$OUT/xeon16-bf16-T16-$D.json"
$PY benchmarks/bench_native.py --runs 5 --threads 2 --json "$OUT/xeon16-avx512-T2-$D.json"
# the loops chosen by the processor's vendor, the other way round: log's and softplus's float32
# lanes and tanh's rational function (the AMD loops, never timed on an Intel processor) and
# the lookup's scalar loop
$PY benchmarks/bench_native.py --runs 5 --reused-output --funcs log,softplus,tanh --loops permutes \
  --json "$OUT/xeon16-avx512-T16-permutes-$D.json"
$PY benchmarks/bench_native.py --bfloat16-only --runs 7 --lookup scalar \
  --json "$OUT/xeon16-bf16-T16-scalar-$D.json"
# the nine kernels outside the target table (float64 passes since 2026-11-26, never run here)
$PY benchmarks/bench_native.py --runs 5 --funcs exp2,log2,expm1,log1p,tan,rsqrt,gelu_tanh,tanh_grad,gelu_grad \
  --json "$OUT/xeon16-avx512-T16-others-$D.json"
if [ "${1:-}" = "--full" ]; then
  ULPLAB_MAX_ISA=avx2 ATEN_CPU_CAPABILITY=avx2 NPY_DISABLE_CPU_FEATURES="X86_V4 AVX512_ICL AVX512_SPR" \
    $PY benchmarks/bench_native.py --runs 5 --reused-output --json "$OUT/xeon16-as-avx2-T16-$D.json"
  # tanh's avx2 build on its AMD loop (the rational function)
  ULPLAB_MAX_ISA=avx2 ATEN_CPU_CAPABILITY=avx2 NPY_DISABLE_CPU_FEATURES="X86_V4 AVX512_ICL AVX512_SPR" \
    $PY benchmarks/bench_native.py --runs 5 --reused-output --funcs tanh --loops permutes \
    --json "$OUT/xeon16-as-avx2-T16-permutes-$D.json"
  $PY benchmarks/verify_native.py --fast64 --variants "${3:-avx512}" --threads "$(nproc)" \
    --record "$OUT/xeon16-fast64-proofs-$D.json" $(echo "${2:-}" | tr , ' ')
fi
