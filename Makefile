# flameprof - a sampling flame-graph profiler for running Erlang/OTP nodes.
#   make            build build/flameprof
#   make check      unit tests (ASan+UBSan) and end-to-end tests against real nodes
#   make check-long the slow fault tests too
#   make check-loaded  make check with one busy loop per core beside it
#   make check-files FILES="tests/e2e/x.t ..."  those test files alone
#   make truth      the on-CPU picture against Linux perf, shape by shape
#   make bench      measure overhead, fidelity and throughput (prints figures)
#   make bench-requests  what flameprof requests costs a 4-tier service
#   make demo       profile the demo workload node and leave the output
#   make demo-requests  time the kv_service example's requests per tier (flameprof requests)
#   make demo-elixir  profile the Elixir example (examples/elixir_shop) in Elixir's names
#   make fuzz       run the fuzzers for longer (clang)
#   make install    PREFIX=/usr/local DESTDIR=
VERSION   = 0.1.0
AGENT_MOD = flameprof_agent_$(subst .,_,$(VERSION))
TRACER_MOD = flameprof_tracer_$(subst .,_,$(VERSION))
REQUESTS_MOD = flameprof_requests_$(subst .,_,$(VERSION))
PREFIX   ?= /usr/local
CC       ?= cc
CFLAGS   ?= -O2 -g
SAN       = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
# --timer: each test file's time in the log, so CI's budget can be read test by test
PROVE    ?= prove --timer
VALGRIND ?=
# e.g. ERLC_FLAGS=-DPRIO=max B=build-max: an agent variant for bench/prio.sh
ERLC_FLAGS ?=
B         = build

# Building needs build/config.mk (scripts/configure.sh finds erl_interface,
# zstd and zlib, installing the build packages first). `make clean` and
# `make install` need nothing and install nothing, so they skip it.
ifneq ($(filter-out clean install,$(or $(MAKECMDGOALS),all)),)
-include $(B)/config.mk
endif
FP_CPPFLAGS = -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -D_REENTRANT \
	-DFP_VERSION='"$(VERSION)"' -DFP_AGENT_MODULE='"$(AGENT_MOD)"' -DFP_TRACER_MODULE='"$(TRACER_MOD)"' \
	-DFP_REQUESTS_MODULE='"$(REQUESTS_MOD)"' $(EI_CFLAGS) $(PKG_CFLAGS) $(CPPFLAGS)
# -Werror is for the project's own builds: `make check` and CI turn it on
# (WERROR=1, below); a plain `make` with a newer compiler warns and still
# builds. WERROR=0 turns it off there too. Objects are not rebuilt when
# only a flag changes: `make clean` first.
ALL_CFLAGS = -std=c11 -Wall -Wextra $(if $(filter 1,$(WERROR)),-Werror) $(FP_CPPFLAGS)
LIBS = $(EI_LIBS) $(PKG_LIBS) -lpthread -lm

# The library holds every room and the front door's parts; cli/main.c alone
# makes the program (the unit tests link the rest). A room is a directory of
# C sources at the top (bench/ is the benchmark's, not a room), so a new
# room is built without a list to edit.
ROOMS    = $(filter-out bench,$(patsubst %/,%,$(sort $(dir $(wildcard */*.c)))))
LIB_SRC  = $(filter-out cli/main.c,$(wildcard $(ROOMS:%=%/*.c))) $(B)/gen/agent_blob.c $(B)/gen/tracer_blob.c \
	$(B)/gen/requests_blob.c $(B)/gen/purge_text.c $(B)/gen/html_page.c $(B)/gen/runner_blob.c
CLI_SRC  = cli/main.c
TESTS    = $(patsubst tests/unit/%.c,%,$(wildcard tests/unit/test_*.c))
# The fuzz targets' sources (tests/fuzz/run.sh runs what these build).
FMT_SRC  = $(wildcard formatter/*.c) common/sample.c
FUZZ_SRC_decode = sampler/decode.c node/term_check.c $(FMT_SRC)
FUZZ_SRC_format = $(FMT_SRC)
FUZZ_SRC_index  = report/rep_index_read.c report/rep_collect.c report/rep_frames.c report/rep_trie.c \
	index/ix_parse.c report/rep_order.c report/rep_folded.c formatter/escape.c formatter/out.c \
	report/rep_input.c report/rep_speedscope.c report/rep_flame.c report/rep_heatmap.c \
	report/rep_text.c report/rep_color.c report/rep_svg_assets.c common/text.c rotate/adopt.c
FUZZ_LIBS_index = -lzstd -lz
FUZZ_SRC_index += report/rep_names.c common/names.c report/rep_html.c $(B)/gen/html_page.c
FUZZ_SRC_calls  = calls/calls_decode.c node/term_check.c tracer/tracer_proto.c calls/calls_out.c common/text.c common/ctl_escape.c
FUZZ_SRC_requests = requests/requests_decode.c node/term_check.c tracer/tracer_proto.c requests/req_table.c requests/hist.c common/text.c common/ctl_escape.c
FUZZ_LIBS_requests = -lm
FUZZ_SRC_rex    = node/rex_reply.c node/packet.c node/term_check.c
FUZZ_SRC_epmd   = node/epmd_reply.c
FUZZ     = decode format index calls requests rex epmd

.PHONY: all check check-parts check-files check-loaded check-unit check-e2e check-long check-fuzz bench bench-requests truth demo demo-requests demo-elixir fuzz install clean deps-demo deps-check deps-fuzz
all: $(B)/flameprof

# What each target needs beyond building, installed (or named) first:
# scripts/install-deps.sh has the lists.
deps-demo:
	@scripts/install-deps.sh demo
# Go from 1.25 (forky's) builds `go tool pprof` on its first use, a minute of
# CPU: here once, into the cache the tests use, not inside a test's time.
deps-check:
	@scripts/install-deps.sh check
	@HOME=$(CURDIR)/$(B)/gohome GOCACHE=$(CURDIR)/$(B)/gocache go tool pprof -h >/dev/null 2>&1 || true
deps-fuzz:
	@scripts/install-deps.sh fuzz

$(B)/config.mk: scripts/configure.sh scripts/install-deps.sh
	@mkdir -p $(B) && scripts/configure.sh > $@.tmp && mv $@.tmp $@

# The in-node modules: each compiled by erlc under a versioned module name
# and embedded with its source, all the same way (one rule set per module,
# from EMBED_ERL). $(1) the module, $(2) its source, $(3) the blob's symbol
# prefix, $(4) the headers it includes. The source is embedded preprocessed
# (erlc -P): erl_parse on the node cannot read -define or ?MACRO.
define EMBED_ERL
$(B)/gen/$(1).erl: $(2)
	@mkdir -p $$(@D) && sed 's/^-module($(basename $(notdir $(2))))\./-module($(1))./' $$< > $$@
$(B)/gen/$(1).beam: $(B)/gen/$(1).erl $(B)/config.mk $(4)
	erlc +deterministic $$(ERLC_FLAGS) -I tracer -I sampler -o $$(@D) $$<
$(B)/gen/$(1).P: $(B)/gen/$(1).erl $(B)/config.mk $(4)
	erlc -P $$(ERLC_FLAGS) -I tracer -I sampler -o $$(@D) $$<
$(B)/gen/$(3)_blob.c: $(B)/gen/$(1).beam $(B)/gen/$(1).P scripts/embed.sh
	(scripts/embed.sh fp_$(3)_beam $$< && scripts/embed.sh fp_$(3)_source $(B)/gen/$(1).P) > $$@
endef
TRACE_HRL = $(wildcard tracer/*.hrl)
$(eval $(call EMBED_ERL,$(AGENT_MOD),sampler/flameprof_agent.erl,agent,tracer/fp_purge.hrl tracer/fp_life.hrl tracer/fp_names.hrl sampler/fp_stack.hrl sampler/fp_receives.hrl))
$(eval $(call EMBED_ERL,$(TRACER_MOD),calls/flameprof_tracer.erl,tracer,$(TRACE_HRL)))
$(eval $(call EMBED_ERL,$(REQUESTS_MOD),requests/flameprof_requests.erl,requests,$(TRACE_HRL)))
# The purge's text (tracer/fp_purge.hrl) for node/load.c: the string
# literals between its -define line and the line ").", as C's.
$(B)/gen/purge_text.c: tracer/fp_purge.hrl
	@mkdir -p $(@D) && { echo '/* generated from tracer/fp_purge.hrl */'; echo 'const char fp_purge_text[] ='; \
	 sed -n '/^-define(FP_PURGE_TEXT,$$/,/^)\.$$/p' $< | sed '1d;$$d'; echo ';'; } > $@.tmp && mv $@.tmp $@
# The runner's expressions (node/runner.exprs), parsed here into the
# external term format, for node/rex.c to send in one call.
$(B)/gen/runner.bin: node/runner.exprs
	@mkdir -p $(@D) && erl -noshell -eval "$$RUNNER_PARSE" -extra $< $@.tmp && mv $@.tmp $@
export RUNNER_PARSE = [In, Out] = init:get_plain_arguments(), {ok, B} = file:read_file(In), \
	{ok, T, _} = erl_scan:string(unicode:characters_to_list(B)), {ok, E} = erl_parse:parse_exprs(T), \
	ok = file:write_file(Out, term_to_binary(E)), halt().
$(B)/gen/runner_blob.c: $(B)/gen/runner.bin scripts/embed.sh
	scripts/embed.sh fp_runner_exprs $< > $@

# The script and style of report's HTML page (report/rep_html.c), as C
# arrays: the sources stay readable files, the binary needs no others.
$(B)/gen/html_page.c: report/rep_html_page.js report/rep_html_page.css scripts/embed.sh
	@mkdir -p $(@D) && { scripts/embed.sh fp_html_js report/rep_html_page.js && \
	 scripts/embed.sh fp_html_css report/rep_html_page.css; } > $@.tmp && mv $@.tmp $@

# Each object depends on the headers it includes (-MMD -MP writes them down
# in a .d beside it) and on config.mk (the include paths).
$(B)/obj/%.o: %.c $(B)/config.mk
	@mkdir -p $(@D) && $(CC) $(ALL_CFLAGS) $(CFLAGS) -MMD -MP -c -o $@ $<
$(B)/asan/%.o: %.c $(B)/config.mk
	@mkdir -p $(@D) && $(CC) $(ALL_CFLAGS) -O1 -g $(SAN) -MMD -MP -c -o $@ $<
-include $(wildcard $(B)/obj/*/*.d $(B)/obj/*/*/*.d $(B)/asan/*/*.d $(B)/asan/*/*/*.d $(B)/tests/*.d $(B)/*.d)

$(B)/libflameprof.a: $(LIB_SRC:%.c=$(B)/obj/%.o)
	rm -f $@ && $(AR) rcs $@ $^
$(B)/asan/libflameprof.a: $(LIB_SRC:%.c=$(B)/asan/%.o)
	rm -f $@ && $(AR) rcs $@ $^
$(B)/flameprof: $(CLI_SRC:%.c=$(B)/obj/%.o) $(B)/libflameprof.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LIBS)
$(B)/tests/%: tests/unit/%.c $(B)/asan/libflameprof.a
	@mkdir -p $(@D) && $(CC) $(ALL_CFLAGS) -O1 -g $(SAN) -MMD -MP $(LDFLAGS) -o $@ $< $(B)/asan/libflameprof.a $(LIBS)

# Text through rotate/ with the report index, as a capture writes it (the
# report tests and bench), built with the sanitizers like the unit tests.
$(B)/ixgen: tests/report/ixgen.c $(B)/asan/libflameprof.a
	@mkdir -p $(@D) && $(CC) $(ALL_CFLAGS) -O1 -g $(SAN) -MMD -MP $(LDFLAGS) -o $@ $< $(B)/asan/libflameprof.a $(LIBS)
# The C pipeline alone (make bench), on the optimised library.
# Its object is built by make check too: tests/unit/house.t reads what it
# includes and uses, as it does every room's.
$(B)/pipeline: $(B)/obj/bench/pipeline.o $(B)/libflameprof.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LIBS)
# libFuzzer targets (clang), each from its own source list above.
CLANG ?= clang
FUZZ_FLAGS = -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -std=c11
# Rebuilt when any of its sources or any header changes (one compiler run
# over all its sources, so no per-object dependency files).
.SECONDEXPANSION:
$(B)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $$(FUZZ_SRC_$$*) $(wildcard */*.h) $(B)/config.mk
	@mkdir -p $(@D) && $(CLANG) $(FUZZ_FLAGS) $(FP_CPPFLAGS) $(LDFLAGS) -o $@ $< $(FUZZ_SRC_$*) $(EI_LIBS) $(FUZZ_LIBS_$*) -lpthread

# FP_WORKLOADS and FP_EI_BIN: what every test script would otherwise work out
# again (tests/lib.sh): the workloads compiled once, erl_interface's bin.
TEST_ENV = ASAN_OPTIONS=halt_on_error=1:detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	FLAMEPROF=$(CURDIR)/$(B)/flameprof IXGEN=$(CURDIR)/$(B)/ixgen VALGRIND="$(VALGRIND)" \
	FP_WORKLOADS=$(CURDIR)/$(B)/tests/ebin \
	FP_EI_BIN="$$(erl -noshell -eval 'io:format("~s",[code:lib_dir(erl_interface)]),halt().')/bin"
WORKLOADS = $(wildcard tests/workloads/*.erl) $(wildcard examples/*.erl)
$(B)/tests/ebin/.stamp: $(WORKLOADS)
	rm -rf $(B)/tests/ebin && mkdir -p $(B)/tests/ebin
	erlc -o $(B)/tests/ebin $(WORKLOADS)
	touch $@
check check-parts check-files check-unit check-e2e check-long check-fuzz: WERROR ?= 1
# Two prove runs. The first runs CHECK_JOBS test files at a time (2 by
# default, one per core of CI's machine): every test has its own scratch
# directory, epmd port, node names and cookie (tests/lib.sh), and most of a
# test's time is waiting on its nodes, so two at once took the tests from
# 762 s to about 500 s. The second runs, one after the other and with
# nothing beside them, the files marked "# check: alone" in their first
# lines: those that compare what flameprof saw with an instrument over the
# same seconds (perf, the workload's own clocks), where another test's CPU
# would be part of what they measure. Both run, whatever the first says.
CHECK_JOBS ?= 2
ALONE_TESTS := $(shell grep -l '^\# check: alone' tests/e2e/*.t)
SHARED_TESTS = $(TESTS:%=$(B)/tests/%) $(wildcard tests/unit/*.t) $(filter-out $(ALONE_TESTS),$(wildcard tests/e2e/*.t))
# What the tests run, built one job per core unless make was given -j (one
# job at a time left one of CI's two cores idle: 79 s, against 49 s).
CHECK_PARTS = $(B)/flameprof $(B)/ixgen $(B)/obj/bench/pipeline.o $(TESTS:%=$(B)/tests/%) \
	$(B)/tests/ebin/.stamp $(FUZZ:%=$(B)/fuzz/fuzz_%)
NPROC := $(shell nproc 2>/dev/null || echo 1)
PAR = $(if $(findstring jobserver,$(MAKEFLAGS)),,-j$(NPROC))
check-parts: $(CHECK_PARTS)
# Installing the test tools beside the build was tried and left out: apt-get's
# unpacking is CPU too (a bare bookworm root: 35 s for the compilers, 83 s for
# the rest), so its make check up to the tests went from 200 s to 191 s only,
# and in CI, beside check-long, from 213 s to 257 s; beside apt-get the
# fuzzers ran 2.5 to 6 times fewer inputs in their seconds.
check: deps-check
	@$(MAKE) --no-print-directory $(PAR) WERROR=$(WERROR) check-parts
	tests/fuzz/run.sh $(CHECK_FUZZ_SECONDS)
	@rc=0; $(TEST_ENV) $(PROVE) -j$(CHECK_JOBS) $(SHARED_TESTS) || rc=1; \
	echo "check: the files marked '# check: alone', one at a time:"; \
	$(TEST_ENV) $(PROVE) $(ALONE_TESTS) || rc=1; exit $$rc
# The same tests on a busy machine (scripts/check-loaded.sh): whatever CI's
# machine is doing beside it, a test fails only when flameprof is wrong.
check-loaded:
	scripts/check-loaded.sh
# A few test files, under the environment make check gives them.
check-files: check-parts
	$(TEST_ENV) $(PROVE) $(FILES)
check-unit: deps-check $(B)/flameprof $(B)/obj/bench/pipeline.o $(TESTS:%=$(B)/tests/%)
	$(TEST_ENV) $(PROVE) $(TESTS:%=$(B)/tests/%) $(wildcard tests/unit/*.t)
check-e2e: deps-check $(B)/flameprof $(B)/ixgen $(B)/tests/ebin/.stamp
	$(TEST_ENV) $(PROVE) $(wildcard tests/e2e/*.t)
check-long: deps-check $(B)/flameprof $(B)/tests/ebin/.stamp
	$(TEST_ENV) $(PROVE) $(wildcard tests/long/*.t)

# libFuzzer targets over the decoder, the formatter, the report index
# reader and the report's writers (the HTML page among them), the calls and
# requests decoders and writers, rex replies and epmd answers
# (tests/fuzz/run.sh):
# a few seconds each in check, FUZZ_SECONDS each in fuzz.
FUZZ_SECONDS ?= 300
CHECK_FUZZ_SECONDS = 8
check-fuzz: deps-fuzz $(FUZZ:%=$(B)/fuzz/fuzz_%)
	tests/fuzz/run.sh $(CHECK_FUZZ_SECONDS)
fuzz: deps-fuzz $(FUZZ:%=$(B)/fuzz/fuzz_%)
	tests/fuzz/run.sh $(FUZZ_SECONDS)

demo: deps-demo
	@$(MAKE) --no-print-directory $(PAR) $(B)/flameprof
	examples/demo.sh $(CURDIR)/$(B)/flameprof

demo-requests: deps-demo $(B)/flameprof
	examples/demo_requests.sh $(CURDIR)/$(B)/flameprof

demo-elixir: $(B)/flameprof
	@scripts/install-deps.sh demo-elixir
	examples/demo_elixir.sh $(CURDIR)/$(B)/flameprof

bench: $(B)/flameprof $(B)/pipeline
	bench/run.sh $(CURDIR)/$(B)/flameprof

# How far the on-CPU picture is from Linux perf's, shape by shape
# (REPS, SECS, SHAPES; doc/truth.md)
truth: $(B)/flameprof
	@scripts/install-deps.sh check
	bench/truth.sh $(CURDIR)/$(B)/flameprof

# flameprof requests' cost on a 4-tier service (BENCH_SECS, BENCH_RATE)
bench-requests: $(B)/flameprof
	bench/requests.sh $(CURDIR)/$(B)/flameprof

# Installs what `make` built; it builds nothing (run `make` first, as
# yourself, then `make install` as root).
install:
	@test -x $(B)/flameprof || { echo "make install: '$(B)/flameprof' is not built; run 'make' first, then 'make install'" >&2; exit 1; }
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 0755 $(B)/flameprof $(DESTDIR)$(PREFIX)/bin/flameprof
	install -m 0644 doc/flameprof.1 $(DESTDIR)$(PREFIX)/share/man/man1/flameprof.1

clean:
	rm -rf $(B)
