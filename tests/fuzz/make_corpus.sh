#!/bin/sh
# make_corpus.sh - (re)records the decoder's seed corpus from the real agent
# (tests/fuzz/make_corpus.erl), and the seeds of rex replies and epmd
# answers (tests/fuzz/make_corpus_replies.erl). Run from the repo root after 'make'.
set -eu
beam=$(ls build/gen/flameprof_agent_*.beam | head -1)
out=tests/fuzz/corpus/decode
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"
rm -f "$out"/agent_*.bin
erlc -o "$tmp" tests/fuzz/make_corpus.erl
erl -sname "fp_corpus_$$" -noshell -pa "$tmp" -run make_corpus main "$beam" "$out"
echo "make_corpus: $(ls "$out" | wc -l) files, $(du -sk "$out" | cut -f1) KiB in $out"
# rex replies and epmd answers (tests/fuzz/make_corpus_replies.erl)
mkdir -p tests/fuzz/corpus/rex tests/fuzz/corpus/epmd
erlc -o "$tmp" tests/fuzz/make_corpus_replies.erl
erl -sname "fp_corpus_r$$" -noshell -pa "$tmp" -run make_corpus_replies main tests/fuzz/corpus/rex tests/fuzz/corpus/epmd
echo "make_corpus: $(ls tests/fuzz/corpus/rex | wc -l) rex replies, $(ls tests/fuzz/corpus/epmd | wc -l) epmd answers"
