%% fp_purge_bench - how long purging one of flameprof's modules takes on a
%% saturated node (bench/purge.sh runs it; issue 34): OTP's code purger as
%% it comes (outstanding_system_requests_limit at its default) against
%% flameprof's purge (tracer/fp_purge.hrl: the limit raised for the purge's
%% length). The module purged is like ours: an on_load watchdog sleeping
%% in a fun of the module, which the purge must kill.
-module(fp_purge_bench).
-export([start/1, run/1]).
-include("fp_purge.hrl").
-compile({nowarn_unused_function, [unload_self/0]}).

%% N CPU-bound processes; the modules the bench needs are loaded first
%% (loading goes through the code server, behind the run queue).
start(N) ->
    [code:ensure_loaded(M) || M <- [erl_eval, erl_scan, erl_parse, compile, erts_code_purger]],
    [spawn(fun() -> spin(0) end) || _ <- lists:seq(1, N)],
    ok.

spin(X) -> spin(erlang:phash2({X, X})).

%% Times = [{otp, Ms}, {flameprof, Ms}] for Rounds rounds of each, each in
%% a process of its own at max priority (the time is the purge's, not the
%% caller's wait for a scheduler).
run(Rounds) ->
    M = fp_purge_bench_m,
    Bin = module(M),
    [{How, [purge_ms(M, Bin, How) || _ <- lists:seq(1, Rounds)]} || How <- [otp, flameprof]].

purge_ms(M, Bin, How) ->
    Self = self(),
    spawn_opt(fun() ->
                      {module, M} = code:load_binary(M, "fp_purge_bench_m.erl", Bin),
                      true = code:delete(M),
                      T0 = erlang:monotonic_time(microsecond),
                      purge(How, M),
                      Self ! {ms, (erlang:monotonic_time(microsecond) - T0) div 1000}
              end, [{priority, max}]),
    receive {ms, Ms} -> false = erlang:check_old_code(M), Ms end.

purge(otp, M) -> erts_code_purger:purge(M);
purge(flameprof, M) ->
    {ok, Tokens, _} = erl_scan:string(?FP_PURGE_TEXT),
    {ok, Exprs} = erl_parse:parse_exprs(Tokens),
    {_, Ref} = spawn_opt(erl_eval, exprs, [Exprs, erl_eval:add_binding('M', M, erl_eval:new_bindings())],
                         [monitor, {priority, high}]),
    receive {'DOWN', Ref, _, _, normal} -> ok end.

module(M) ->
    Src = "-module(" ++ atom_to_list(M) ++ ").\n-export([f/0]).\n-on_load(w/0).\n"
          "w() -> spawn(fun() -> receive after 60000 -> ok end end), ok.\nf() -> ok.\n",
    {ok, Toks, _} = erl_scan:string(Src),
    {ok, M, Bin} = compile:forms(forms(Toks, []), [binary]),
    Bin.

forms([], []) -> [];
forms([{dot, _} = D | T], Cur) -> {ok, F} = erl_parse:parse_form(lists:reverse([D | Cur])), [F | forms(T, [])];
forms([H | T], Cur) -> forms(T, [H | Cur]).
