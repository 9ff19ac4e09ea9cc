%% fp_flood - many busy processes that count their work in one shared
%% counter, so a test can tell whether the node's own work goes on while
%% flameprof is stalled (tests/e2e/fault_stalled_writer.t).
-module(fp_flood).
-export([start/1, progress/0, work/2]).

start(N) ->
    C = counters:new(1, [write_concurrency]),
    persistent_term:put(?MODULE, C),
    [spawn(?MODULE, work, [C, I]) || I <- lists:seq(1, N)],
    ok.

progress() -> counters:get(persistent_term:get(?MODULE), 1).

%% A few levels of calls with varied names, so stacks differ between
%% processes and the agent has definitions to send as well as samples.
work(C, I) ->
    step(I rem 7, C, I),
    work(C, I).

step(0, C, I) -> leaf(C, I), ok;
step(N, C, I) -> step(N - 1, C, I), ok.

%% Each call gets a fresh 1000-byte seq_trace label: every sample then
%% carries a new label definition, ~1 KB on the wire, so the agent's sends
%% fill the distribution buffers quickly when flameprof stops reading.
leaf(C, I) ->
    U = erlang:unique_integer([positive]),
    seq_trace:set_token(label, <<U:64, I:64, 0:7872>>),
    _ = erlang:phash2({I, U}),
    counters:add(C, 1, 1).
