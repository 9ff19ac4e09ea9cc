%% fp_req_pp - a long-lived "connection" for the `flameprof requests`
%% token tests: two registered processes that pass a message back and
%% forth every millisecond, forever. The first calls hit/1 (the entry) on
%% each message, so a token set there goes to the second with the next
%% message, comes back with the answer, and so on: it never drops by
%% itself.
%%   start(): the pair (fp_pp_a, fp_pp_b).
%%   foreign(): a process (fp_pp_f) that carries the application's own
%%   token (label 42), idle.
%%   ours(): how many processes carry a token labelled with a pid (ours).
%%   label(Name): the label of a registered process's token, or none.
-module(fp_req_pp).
-export([start/0, foreign/0, ours/0, label/1, hit/1]).

start() ->
    B = spawn(fun pong/0),
    register(fp_pp_b, B),
    A = spawn(fun() -> receive go -> ok end, ping(B, 0) end),
    register(fp_pp_a, A),
    A ! go,
    ok.

ping(B, N) ->
    B ! {ping, self(), N},
    receive {pong, M} -> hit(M) end,
    receive after 1 -> ok end,
    ping(B, N + 1).

pong() ->
    receive {ping, From, N} -> From ! {pong, N} end,
    pong().

hit(N) -> N.

foreign() ->
    Self = self(),
    F = spawn(fun() ->
                      seq_trace:set_token(label, 42),
                      Self ! ready,
                      receive stop -> ok end
              end),
    register(fp_pp_f, F),
    receive ready -> ok end.

ours() ->
    length([P || P <- erlang:processes(),
                 {sequential_trace_token, {_, L, _, _, _}} <- [erlang:process_info(P, sequential_trace_token)],
                 is_pid(L)]).

label(Name) ->
    case erlang:process_info(whereis(Name), sequential_trace_token) of
        {sequential_trace_token, {_, L, _, _, _}} -> L;
        _ -> none
    end.
