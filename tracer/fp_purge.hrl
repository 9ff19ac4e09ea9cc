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
%% The module is deleted by the same process, just before the purge, and
%% only while it is loaded: code:delete/1 of a module that already has old
%% code makes the emulator send an error report ("must be purged before
%% deleting"), and printing it makes the node's logger load its formatter
%% (about 220 new atoms, and a line in the node's log). Two of our parties
%% may ask for the same module's removal at once (the module's last process
%% and flameprof, when the module is slow to go: node/load.c), so every
%% delete and purge of ours runs in the process that holds flameprof_purge,
%% and a request for the module that process is already removing ends at
%% once: that process deletes it if it is loaded and purges it after.
%%
%% The purge runs in erl_eval, in a process of its own that runs no code
%% of ours: purging kills whoever runs the old code, and the old code is
%% the very module that asked for the purge. M: the module's name.
-define(FP_PURGE_TEXT,
"Lim = outstanding_system_requests_limit, "
"Do = fun() -> "
"  case erlang:function_exported(erts_code_purger, purge, 1) of "
"    true -> erts_code_purger:purge(M); "
"    false -> code:purge(M) "
"  end "
"end, "
"Purge = fun Retry() -> "
"  try register(flameprof_purge, self()) of "
"    true -> "
"      put(flameprof_purge, M), "
"      Old = try erlang:system_info(Lim) catch error:_ -> none end, "
"      New = min(erlang:system_info(process_count) + 1000, 1 bsl 26), "
"      Prev = case is_integer(Old) andalso Old < New of "
"               true -> erlang:system_flag(Lim, New); "
"               false -> none "
"             end, "
"      try erlang:check_old_code(M) andalso Do(), "
"          erlang:module_loaded(M) andalso code:delete(M) andalso Do() "
"      after is_integer(Prev) andalso erlang:system_flag(Lim, Prev) "
"      end "
"  catch error:badarg -> "
"    case whereis(flameprof_purge) of "
"      undefined -> Retry(); "
"      Holder -> "
"        Ref = erlang:monitor(process, Holder), "
"        Same = case erlang:process_info(Holder, dictionary) of "
"                 {dictionary, D} -> lists:keyfind(flameprof_purge, 1, D) =:= {flameprof_purge, M}; "
"                 _ -> false "
"               end, "
"        case Same of "
"          true -> erlang:demonitor(Ref, [flush]), done; "
"          false -> receive {'DOWN', Ref, process, _, _} -> Retry() end "
"        end "
"    end "
"  end "
"end, "
"Purge(). "
).

%% The delete (through the code server, so that its view of what is
%% loaded stays right) and the purge, in a process of their own.
unload_self() ->
    {ok, Tokens, _} = erl_scan:string(?FP_PURGE_TEXT),
    {ok, Exprs} = erl_parse:parse_exprs(Tokens),
    spawn_opt(erl_eval, exprs, [Exprs, erl_eval:add_binding('M', ?MODULE, erl_eval:new_bindings())],
              [{priority, high}]).
