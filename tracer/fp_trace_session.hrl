%% fp_trace_session.hrl - where flameprof's two tracers (flameprof_tracer for
%% `calls`, flameprof_requests) set their trace patterns and flags. Included
%% by both (each is loaded on the node alone, so the code is compiled into
%% each; the embedded source is preprocessed, includes and all).
%%
%% A trace session of our own where the node has them (OTP 27+: the trace
%% module), so the application's tracing (dbg, tprof, its own, in the
%% node's global session or in sessions of theirs) and ours neither see nor
%% touch each other, and destroying the session removes everything of ours
%% at once. OTP 25 and 26 have only the node's global session: the tracers
%% then refuse what somebody else traces rather than share it. Chosen at
%% run time: the modules are built once, on the build host's release, and
%% loaded on nodes of every release. The session's tracer is the calling
%% process (the tracer's session process). A session is also destroyed by
%% the VM once no process holds its handle.
%%
%% Tr: global | {session, Session}.

tr_open(Name) ->
    %% code:ensure_loaded/1 is a call to the code server, a normal-priority
    %% process that waits behind a saturated node's whole run queue (tens
    %% of seconds measured, issue 30): asked only on a release that can
    %% have the module and has not loaded it yet
    case erlang:module_loaded(trace) orelse
         attempt(fun() -> list_to_integer(erlang:system_info(otp_release)) < 27 end) =:= true of
        true -> ok;
        false -> _ = code:ensure_loaded(trace), ok
    end,
    case erlang:function_exported(trace, session_create, 3) of
        true -> {session, trace:session_create(Name, self(), [])};
        false -> global
    end.

tr_close({session, S}) ->
    _ = attempt(fun() -> trace:session_destroy(S) end),
    ok;
tr_close(global) -> ok.

tr_pattern(global, MFA, Spec, Flags) -> erlang:trace_pattern(MFA, Spec, Flags);
tr_pattern({session, S}, MFA, Spec, Flags) -> trace:function(S, MFA, Spec, Flags).

tr_info(global, What, Item) -> erlang:trace_info(What, Item);
tr_info({session, S}, What, Item) -> trace:info(S, What, Item).

%% Flags on processes (a pid, all or new); in the global session the
%% tracer is named, in a session it is the session's.
tr_process(global, Procs, true, Flags) -> erlang:trace(Procs, true, [{tracer, self()} | Flags]);
tr_process(global, Procs, false, Flags) -> erlang:trace(Procs, false, Flags);
tr_process({session, S}, Procs, On, Flags) -> trace:process(S, Procs, On, Flags).
