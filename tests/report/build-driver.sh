#!/bin/sh
# build-driver.sh [OUT] [extra CFLAGS...] - builds tests/report/driver.c with
# report/ and formatter/ only (no ei), e.g. for profiling or for running the
# report e2e tests with FLAMEPROF=OUT before the CLI dispatch exists.
set -eu
cd "$(dirname "$0")/../.."
out=${1:-build/report-driver}
[ $# -gt 0 ] && shift
mkdir -p "$(dirname "$out")"
${CC:-cc} -std=c11 -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE \
	-DFP_VERSION='"0.1.0"' -O2 -g "$@" -o "$out" tests/report/driver.c report/*.c \
	formatter/*.c sampler/sample.c -lzstd -lz -lm
