#!/usr/bin/env bash
# The GPU tests in one process (each in a process of its own loaded cuDNN, cuBLAS and NCCL again: 1.3 s, 166 times,
# on a machine without a GPU). A failure fails; where tests skipped for want of a GPU (none failed), the reason is
# printed and the test reports skipped (exit 77).
#   test/gpu_tests.sh OPMARK_GPU_TESTS
set -uo pipefail
out=$("$1" --gtest_brief=1 2>&1); rc=$?
printf '%s\n' "$out" | tail -40
[ $rc -eq 0 ] || exit $rc
if printf '%s\n' "$out" | grep -q "no CUDA device"; then
  skipped=$(printf '%s\n' "$out" | grep -m1 -o '\[  SKIPPED \] [0-9]* test' | grep -o '[0-9]*')
  echo "SKIP: $(printf '%s\n' "$out" | grep -m1 -o 'no CUDA device ([^)]*)'): ${skipped:-the} GPU tests skipped"
  exit 77
fi
