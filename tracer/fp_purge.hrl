%% fp_purge.hrl - taking one of flameprof's modules off the node fast, even
%% on a saturated node: unload_self/0 for the module that includes it (the
%% sampling agent and both tracers). node/load.c starts the same purge
%% from the C side: it reads ?FP_PURGE_TEXT out of this file at build time
%% (the Makefile's purge_text rule), so the text must stay plain string
%% literals, one per line, between the -define line and the line ").".
%%
%% Why not erts_code_purger:purge/1 alone: OTP's code purger asks every
%% process of the node whether it runs the old code, at most
%% outstanding_system_requests_limit requests at a time (2 x schedulers:
%% 4 on 2 schedulers), each answered when that process is next scheduled
%% at normal priority. On a node of 1,000 CPU-bound processes on 2
%% schedulers that is a round of the run queue per 4 processes: 2.7-4.6 s
%% per purge measured, minutes with 100,000 processes (doc/benchmarks.md).
%% Raising the limit above the process count for the purge's length asks
%% them all at once: 0.1 s on that node. The old value is put back when
%% the purge ends, however it ends (try ... after), and only one purge of
%% ours raises it at a time (the registered name flameprof_purge: a second
%% waits for the first to end), so the node is left as it was.
%%
%% The purge runs in erl_eval, in a process of its own that runs no code
%% of ours: purging kills whoever runs the old code, and the old code is
%% the very module that asked for the purge. M: the module's name.
-define(FP_PURGE_TEXT,
"Lim = outstanding_system_requests_limit, "
"Purge = fun Retry() -> "
"  try register(flameprof_purge, self()) of "
"    true -> "
"      Old = try erlang:system_info(Lim) catch error:_ -> none end, "
"      New = min(erlang:system_info(process_count) + 1000, 1 bsl 26), "
"      Prev = case is_integer(Old) andalso Old < New of "
"               true -> erlang:system_flag(Lim, New); "
"               false -> none "
"             end, "
"      try case erlang:function_exported(erts_code_purger, purge, 1) of "
"            true -> erts_code_purger:purge(M); "
"            false -> code:purge(M) "
"          end "
"      after is_integer(Prev) andalso erlang:system_flag(Lim, Prev) "
"      end "
"  catch error:badarg -> "
"    Ref = erlang:monitor(process, flameprof_purge), "
"    receive {'DOWN', Ref, process, _, _} -> Retry() end "
"  end "
"end, "
"Purge(). "
).

%% Deleting is quick (and goes through the code server, so that its view
%% of what is loaded stays right); the purge goes to a process of its own.
unload_self() ->
    code:delete(?MODULE),
    {ok, Tokens, _} = erl_scan:string(?FP_PURGE_TEXT),
    {ok, Exprs} = erl_parse:parse_exprs(Tokens),
    spawn_opt(erl_eval, exprs, [Exprs, erl_eval:add_binding('M', ?MODULE, erl_eval:new_bindings())],
              [{priority, high}]).
