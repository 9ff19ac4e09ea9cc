#!/bin/bash
# tests/e2e/fault_kill9_random.t, 20 runs (issue 4).
FP_KILL9_RUNS=${FP_KILL9_RUNS:-20} exec "$(dirname "$0")/../e2e/fault_kill9_random.t"
