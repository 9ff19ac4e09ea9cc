%% flameprof_requests - the in-node half of `flameprof requests`.
%%
%% Loaded like the sampling agent and the calls tracer (code:load_binary/3
%% under a versioned module name). A request starts at each call of the
%% entry function: its trace pattern's match spec gives the calling process
%% a seq_trace token whose label is that process's pid, and the VM carries
%% the token along with every message the request sends, so the processes
%% that work on it (a gen_server, a pool worker) carry it too. The tier
%% patterns fire only in a process that carries a token (is_seq_trace) and
%% put the token's label in their trace message; their return (or
%% exception) ends the tier's time. The `call` flag with monotonic
%% timestamps goes on every process: only the named functions send.
%%
%% The tracer is the session process itself. Trace messages from different
%% processes may reach it out of order, so it holds them REORDER_MS and
%% handles them by timestamp. It sums each tier per request (the outermost
%% call of a tier in a process; a tier run several times adds up), and at
%% the entry's return puts `_total` and every tier's sum into log-linear
%% histograms per (identity, tier). Every window it ships the histograms,
%% not the trace messages.
%%
%% A circuit breaker: a trace message that arrives more than max_late_ms
%% after its timestamp, or a queue past max_queue, turns every pattern off,
%% drops the queue and the requests in flight, counts a pause and turns the
%% patterns back on after a backoff. A call_count pattern on the entry
%% functions counts every entry call the node makes, the whole run; each
%% entry call the tracer hears of ends in exactly one count (Stats below),
%% so the run's figures add up to that count. Sampling (sample < 1000 per mille)
%% turns the entry pattern on for that share of each second.
%%
%% Where the patterns and flags go: from OTP 27 in a trace session of its
%% own (trace:session_create/3), so the application's call tracing (dbg,
%% tprof, its own) and ours neither see nor touch each other, and destroying
%% the session removes everything of ours at once; OTP 25 and 26 have only
%% the node's global session, where a function or process somebody else
%% traces is refused rather than shared (tr_open/1). seq_trace has no
%% sessions: a node whose sequential tracer is set (somebody follows their
%% own tokens) is refused, since our labels would overwrite theirs.
%%
%% The guardian adopts the lock flameprof_tracer, the same as `flameprof
%% calls` (one tracing session per node; the C-node registers it before
%% any code is touched, see node/lock.c), cleans up if the session dies
%% and kills the lock only after that; the session monitors flameprof's node.
%%
%% Our seq_trace tokens must not outlive the run, and long-lived processes
%% that keep messaging each other pass a token on forever. Ours carry the
%% request's pid as label and only the monotonic_timestamp flag (it makes
%% no trace message by itself; the label must be an immediate: a tuple set
%% by a match spec crashes OTP 25), so the end of a run (stop, flameprof's
%% node gone, the session dead) finds the processes that carry one of ours
%% (process_info sequential_trace_token) and clears them: at once for the
%% whole node with seq_trace:reset_trace() when no other token and no
%% system sequential tracer is there (it also clears the tokens of
%% messages in queues), else, and for tokens that come back, with a call
%% pattern on the modules those processes run whose match spec clears the
%% token ({set_seq_token, sequential_trace_token, []}) and sends nothing;
%% until no process has carried one for a while, at most TOKEN_MAX_MS.
%%
%% Messages to the sink (the C-node's pid); requests/requests_decode.c reads them:
%%   {fp_req_started, Proto, Session, NEntry, NTierFunctions}
%%   {fp_req_error, Proto, Reason, Detail}          (Detail: a binary)
%%     Reason: lock_lost | nomatch | in_use | seq_tracer | badfun | too_many,
%%     or died
%%   {fp_req_window, Proto, EndUs, Rows, Slow, Stats}
%%     EndUs: the window's end, system time in microseconds
%%     Rows = [{Identity, Tier, Count, SumUs, MaxUs, [{Bucket, N}]}]
%%     Slow = [{Identity, TotalUs, [{Tier, Us}], [Pid]}]  (binaries)
%%     Stats = {Requests, Stray, Pauses, Paused, SlowLeftOut, Dropped, Reloaded,
%%              IdFunFailed, PausedUs, Untraced,
%%              Calls, EntryMsgs, Nested, Queued, InFlight, TierOut, Overlap}
%%       IdFunFailed: requests whose identity fun crashed or timed out
%%       PausedUs: time the breaker held tracing off in the window
%%       Untraced: entry calls while paused (read from Calls' counter)
%%       Calls: entry calls the node made in the window (a call_count
%%         pattern on the entry functions for the whole run)
%%       EntryMsgs: entry call trace messages received; each ends as one of
%%         Requests (finished), Nested (an entry call inside a request of
%%         the same process), Dropped (in flight at a trip), Queued
%%         (dropped unread at a trip, or arriving while paused) or InFlight
%%         (requests still running at the end: the last window only)
%%       TierOut = [{Tier, AfterEnd, NoRequest}]: outermost tier calls that
%%         returned after their request had ended (or was dropped at a
%%         trip), or under a token no request of this run set (or an old
%%         one); counted in Stray, in no row
%%       Overlap: entry calls heard of that Untraced counted too (made
%%         between a pause's reads and the switches, see mark_calls/2)
%%   {fp_req_stopped, Proto, Cleared, Left}         after the last window
%%     Cleared: processes that carried one of our tokens at the end;
%%     Left: those still carrying one when we gave up
%% From the sink: stop.
-module(flameprof_requests).

-define(PROTO, 1).
-define(SWEEP_DELAY_MS, 200).
-define(ERROR_TAG, fp_req_error).
-define(TICK_MS, 20).
-define(REORDER_MS, 50).
-define(RELOAD_CHECK_MS, 500).
-define(MAX_IDENTITIES, 200).
-define(MAX_SLOW, 100).
-define(IDENTITY_BYTES, 64).
-define(IDENTITY_FUN_MS, 100).
%% a fun still waiting at its deadline for a scheduler (having run next to
%% nothing) or for the code server waits again, 1 s in all (see run_fun/2)
-define(IDENTITY_FUN_MAX_MS, 1000).
-define(IDENTITY_FUN_REDS, 10000).
-define(BACKOFF_MS, 1000).
-define(MAX_BACKOFF_MS, 30000).
-define(TOKEN_MAX_MS, 5000).
-define(TOKEN_ROUND_MS, 100).
-define(TOKEN_QUIET_ROUNDS, 5).
-define(DELIVERED_MS, 5000).
-define(BRACKET_TRIES, 50).
%% init/1 and session/2 exported, the watchdog (on_load), the guardian,
%% tr_open/1 and the rest of where patterns and flags go
-include("fp_trace_common.hrl").

%% ---------------------------------------------------------------- start

%% Set = {Tr, MFAs}: where the session traces and what it set.
guard_set(_) -> {global, []}.

guard_setting({setting, tr, Tr}, {_, MFAs}) -> {Tr, MFAs};
guard_setting({setting, More}, {Tr, MFAs}) -> {Tr, More ++ MFAs};
guard_setting(_, Set) -> Set.

guard_died({Tr, MFAs}, Session) ->
    cleanup(Tr, MFAs, Session),
    _ = clear_tokens().

%% A destroyed session took every flag with it: nothing to sweep.
sweep({{session, _} = Tr, _}, _) -> tr_close(Tr);
sweep({global, _}, Session) ->
    receive after ?SWEEP_DELAY_MS -> ok end,
    cleanup(global, [], Session).

%% ---------------------------------------------------------------- session

session(Guardian, #{sink := Sink} = Opts) ->
    process_flag(trap_exit, true),
    process_flag(message_queue_data, off_heap),
    erlang:monitor_node(node(Sink), true),
    Tr = tr_open(flameprof_requests),
    Guardian ! {setting, tr, Tr},
    case setup(Guardian, Opts, Tr) of
        {ok, S} ->
            Sink ! {fp_req_started, ?PROTO, self(), length(maps:get(entry, S)),
                    length(maps:get(tier_mfas, S))},
            %% started at high priority (fp_trace_common.hrl), so that
            %% the setup does not wait behind a saturated node's run
            %% queue; the trace messages are handled at normal priority
            process_flag(priority, normal),
            erlang:send_after(?TICK_MS, self(), tick),
            loop(S);
        {error, Reason, Detail} ->
            tr_close(Tr),
            Sink ! {fp_req_error, ?PROTO, Reason, Detail},
            exit(normal)
    end.

setup(Guardian, Opts, Tr) ->
    try
        check_seq_tracer(),
        IdFun = identity_fun(maps:get(identity, Opts)),
        Entry = expand(maps:get(entry, Opts)),
        Named = [{Name, MFA} || {Name, P} <- maps:get(tiers, Opts), MFA <- expand(P)],
        %% --full: every function of these patterns is a tier of its own,
        %% named by its MFA (a function in a named tier stays there)
        Full = [{mfa_text(MFA), MFA} || P <- maps:get(full, Opts, []), MFA <- expand(P)],
        Tiers = Named ++ Full,
        Limit = maps:get(limit, Opts, 1000),
        length(Tiers) > Limit andalso throw({too_many, integer_to_binary(length(Tiers))}),
        TierOf = lists:foldl(fun({Name, MFA}, M) ->
                                     case maps:is_key(MFA, M) of
                                         true -> M;
                                         false -> M#{MFA => Name}
                                     end
                             end, #{}, Tiers),
        TierMFAs = maps:keys(TierOf) -- Entry,
        %% only the global session is shared with anybody else
        Tr =:= global andalso
            [throw({in_use, mfa_text(MFA)}) || MFA <- Entry ++ TierMFAs, in_use(MFA)],
        Tr =:= global andalso check_untraced(),
        Guardian ! {setting, Entry ++ TierMFAs},
        S = #{sink => maps:get(sink, Opts), guardian => Guardian, opts => Opts, tr => Tr,
              entry => Entry, tier_mfas => TierMFAs, tier_of => TierOf,
              id => IdFun, every => maps:get(every_ms, Opts) * 1000,
              slow => maps:get(slow_us, Opts), sample => maps:get(sample, Opts),
              max_late => maps:get(max_late_ms, Opts) * 1000, max_queue => maps:get(max_queue, Opts),
              buf => [], stacks => #{}, depth => #{}, reqs => #{}, hist => #{}, ids => #{}, slow_list => [],
              counts => #{requests => 0, stray => 0, pauses => 0, slow_left => 0, dropped => 0,
                          id_failed => 0, paused_us => 0, untraced => 0,
                          entry_msgs => 0, nested => 0, queued => 0, in_flight => 0, overlap => 0},
              calls_seen => #{}, calls_base => 0, calls_last => 0, pause_mark => 0, calls_final => undefined,
              ranges => [], final_ts => undefined, pause_read => 0,
              ended => #{}, ended_prev => #{}, tier_out => #{},
              reloaded => [], paused_until => undefined, paused_since => 0, backoff => ?BACKOFF_MS, last_trip => now_mono(),
              entry_on => true, window_start => now_us(), sample_start => now_mono(), last_reload_check => now_us(),
              stamps => stamps(Entry ++ TierMFAs)},
        count_and_trace(S),
        tr_process(Tr, all, true, [call, monotonic_timestamp]),
        {ok, S}
    catch
        throw:{Reason, Detail} -> {error, Reason, Detail}
    end.

%% Entry: the caller gets a token labelled with its pid, with the
%% monotonic_timestamp flag alone as our mark (see clear_tokens/0). Tier:
%% only in a process that carries a token, whose label the message names.
entry_spec() ->
    [{'_', [], [{set_seq_token, label, {self}}, {set_seq_token, monotonic_timestamp, true},
                {exception_trace}]}].
tier_spec() -> [{'_', [{is_seq_trace}], [{message, {get_seq_token}}, {exception_trace}]}].

spec(true, Spec) -> Spec;
spec(false, _) -> false.

%% At the start the entry functions get their trace pattern and the
%% call_count that runs the whole run in one call: no entry call is counted
%% without being traced, or the other way round, at the start.
count_and_trace(#{entry := Entry, tier_mfas := TierMFAs, tr := Tr}) ->
    [tr_pattern(Tr, MFA, entry_spec(), [local, call_count]) || MFA <- Entry],
    [tr_pattern(Tr, MFA, tier_spec(), [local]) || MFA <- TierMFAs],
    ok.

entry_pattern(#{entry := Entry, tr := Tr}, On) ->
    [tr_pattern(Tr, MFA, spec(On, entry_spec()), [local]) || MFA <- Entry],
    ok.

tier_patterns(#{tier_mfas := TierMFAs, tr := Tr}, On) ->
    [tr_pattern(Tr, MFA, spec(On, tier_spec()), [local]) || MFA <- TierMFAs],
    ok.

%% Where a pause begins and ends, the entry calls are read on the traced
%% side of the entry pattern's switch (before it goes off, after it comes
%% back on), with the time of the read: the calls between the read and the
%% switch are both traced and in the pause's count, and those heard of
%% with a trace timestamp (the same monotonic nanoseconds) between a
%% pause's two reads are taken off the pause's count (overlap).
%% The VM stamps a call's trace message, then counts it, and the clock
%% cannot be read together with the counter: the counter is read on both
%% sides of one reading of the clock (T), again until no call was counted
%% between the two reads (at most ?BRACKET_TRIES times). The calls then
%% split at T exactly, but for one in flight across the reads on each
%% scheduler (stamped before T, counted after): the line under the table
%% says how many landed on the wrong side. A pause's count starts at the
%% read after T and ends at the read before it, so that a split left
%% inexact (a call counted between the reads on every try) never adds to
%% the pause's "in flight at its start": its calls are among those left
%% to the switches. The stop reads after its switch off, which returns
%% once every scheduler has passed it: every call traced was counted, and
%% those after the switch are not traced (they are named too). At high
%% priority the tracer does not wait behind a busy node's run queue
%% between the switch and the read.
mark_calls(S, Side) ->
    mark_calls(S, Side, ?BRACKET_TRIES).

mark_calls(S0, Side, Tries) ->
    {Before, S1} = read_calls(S0),
    T = erlang:monotonic_time(nanosecond),
    {After, S} = read_calls(S1),
    case Before =:= After orelse Tries =< 1 of
        true when Side =:= start -> {After, T, S};
        true -> {Before, T, S};
        false -> mark_calls(S, Side, Tries - 1)
    end.

at_high_priority(Fun) ->
    Prio = process_flag(priority, high),
    try Fun() after process_flag(priority, Prio) end.

%% The user's fun, as source (Erlang's fun, or Elixir's fn on a node that
%% runs Elixir): read, checked to be a fun expression of one argument (its
%% parsed form, before anything is evaluated: evaluating a fun expression
%% only makes the closure), then evaluated here, once. Its body is code the
%% node runs for each request.
identity_fun({'fun', Source}) ->
    Fun = case elixir_fn(Source) of
              true -> elixir_fun(Source);
              false -> erlang_fun(Source)
          end,
    is_function(Fun, 1) orelse throw({badfun, <<"it is not a fun of one argument">>}),
    {'fun', Fun};
identity_fun(Other) -> Other.

erlang_fun(Source) ->
    try
        {ok, Tokens, _} = ok_or_throw(erl_scan:string(binary_to_list(Source) ++ ".")),
        {ok, [Expr]} = ok_or_throw(erl_parse:parse_exprs(Tokens)),
        fun_of_one(Expr) orelse
            throw({badfun, <<"it is not a fun expression of one argument">>}),
        {value, F, _} = erl_eval:expr(Expr, erl_eval:new_bindings()),
        F
    catch
        throw:{badfun, _} = Bad -> throw(Bad);
        _:Why -> throw({badfun, short(Why)})
    end.

%% Elixir's fn ... end, on a node that runs Elixir: read by Elixir's own
%% parser (Code.string_to_quoted/1), checked the same way before anything
%% is evaluated (the quoted form is one fn whose every clause takes one
%% argument, a guard or not), then Code.eval_quoted/1 makes the closure.
elixir_fn(Source) ->
    case string:trim(Source, leading) of
        <<"fn", C, _/binary>> when C =:= $\s; C =:= $\t; C =:= $\n; C =:= $( -> true;
        _ -> false
    end.

elixir_fun(Source) ->
    %% as --names auto decides: the elixir application runs here
    is_pid(application_controller:get_master(elixir)) andalso
        code:ensure_loaded('Elixir.Code') =:= {module, 'Elixir.Code'} orelse
        throw({badfun, <<"fn ... end is Elixir and this node does not run Elixir">>}),
    try 'Elixir.Code':string_to_quoted(Source) of
        {ok, {fn, _, Clauses} = Quoted} when is_list(Clauses) ->
            elixir_one_arg(Clauses) orelse
                throw({badfun, <<"it is not a fn of one argument">>}),
            {F, _} = 'Elixir.Code':eval_quoted(Quoted),
            F;
        {ok, _} -> throw({badfun, <<"it is not one fn expression">>});
        {error, {_, Msg, Token}} -> throw({badfun, elixir_error(Msg, Token)})
    catch
        throw:{badfun, _} = Bad -> throw(Bad);
        _:Why -> throw({badfun, short(Why)})
    end.

%% Elixir's parse errors are a message (a binary, or a prefix and a
%% suffix) and the token it stopped at.
elixir_error(Msg, Token) ->
    try iolist_to_binary([tuple_to_list_or(Msg), Token]) of
        B -> binary:part(B, 0, min(byte_size(B), 400))
    catch error:_ -> short({Msg, Token})
    end.

tuple_to_list_or({A, B}) -> [A, B];
tuple_to_list_or(M) -> M.

elixir_one_arg(Cs) ->
    Cs =/= [] andalso
        lists:all(fun({'->', _, [[{'when', _, [_, _]}], _]}) -> true;
                     ({'->', _, [[{'when', _, _}], _]}) -> false;
                     ({'->', _, [[_], _]}) -> true;
                     (_) -> false
                  end, Cs).

%% fun(A) -> ... end, fun Name(A) -> ... end, fun m:f/1: nothing else.
fun_of_one({'fun', _, {clauses, Cs}}) -> one_arg(Cs);
fun_of_one({named_fun, _, _, Cs}) -> one_arg(Cs);
fun_of_one({'fun', _, {function, {atom, _, _}, {atom, _, _}, {integer, _, 1}}}) -> true;
fun_of_one(_) -> false.

one_arg(Cs) -> Cs =/= [] andalso lists:all(fun({clause, _, [_], _, _}) -> true; (_) -> false end, Cs).

ok_or_throw({error, {_, Mod, Desc}, _}) -> throw({badfun, iolist_to_binary(Mod:format_error(Desc))});
ok_or_throw({error, {_, Mod, Desc}}) -> throw({badfun, iolist_to_binary(Mod:format_error(Desc))});
ok_or_throw({ok, [_]} = Ok) -> Ok;
ok_or_throw({ok, _, _} = Ok) -> Ok;
ok_or_throw({ok, _}) -> throw({badfun, <<"it is not one expression">>}).

short(Why) ->
    B = iolist_to_binary(io_lib:format("~0tP", [Why, 6])),
    case byte_size(B) > 400 of true -> binary:part(B, 0, 400); false -> B end.

%% Patterns are {Module, Function | '_', Arity | '_'}, names as binaries;
%% no atom is made from the user's text.
expand({ModText, F, A} = P) ->
    M = loaded_module(ModText),
    Fun = case F of '_' -> '_'; _ -> existing_atom(F) end,
    Found = [{M, Fn, Ar} || {Fn, Ar} <- functions(M),
                            F =:= '_' orelse Fn =:= Fun,
                            A =:= '_' orelse Ar =:= A],
    Found =:= [] andalso
        throw({nomatch, <<"pattern ", (pattern_text(P))/binary, " matches no function">>}),
    lists:usort(Found).

in_use(MFA) ->
    case attempt(fun() -> erlang:trace_info(MFA, traced) end) of
        {traced, false} -> counted(MFA);
        {traced, _} -> true;
        _ -> false
    end.

%% A call_count pattern of someone else's (ours counts entry calls while
%% paused).
counted(MFA) ->
    case attempt(fun() -> erlang:trace_info(MFA, call_count) end) of
        {call_count, false} -> false;
        {call_count, _} -> true;
        _ -> false
    end.

%% seq_trace has no sessions: a sequential tracer of somebody else's (set
%% with seq_trace:set_system_tracer/1; `false` when none, `undefined` read
%% defensively) follows tokens our match specs would relabel, and its
%% tokens would look like our requests.
check_seq_tracer() ->
    case system_seq_tracer() of
        T when T =:= false; T =:= undefined -> ok;
        T -> throw({seq_tracer, iolist_to_binary(io_lib:format("~0tP", [T, 5]))})
    end.

%% seq_trace:get_system_tracer/0 without the module: seq_trace's functions
%% are one BIF each, and a node that never loaded seq_trace would load it
%% through the code server, which on a saturated node waits behind the
%% whole run queue (so does timer, for timer:sleep/1: `receive after` here).
system_seq_tracer() ->
    element(2, erlang:system_info(sequential_tracer)).

%% A process traced by someone else (dbg, an application tracer) would
%% lose its flags to ours (the global session only).
check_untraced() ->
    case erlang:trace_info(new, tracer) of
        {tracer, []} -> ok;
        _ -> throw({in_use, <<"new processes">>})
    end,
    [throw({in_use, list_to_binary(pid_text(P))})
     || P <- erlang:processes(), traced_by_other(P)],
    ok.

%% ---------------------------------------------------------------- running

loop(S) ->
    receive
        {trace_ts, _, _, _, _} = M -> loop(add(M, S));
        {trace_ts, _, _, _, _, _} = M -> loop(add(M, S));
        tick ->
            erlang:send_after(?TICK_MS, self(), tick),
            loop(tick(S));
        stop ->
            %% The end at high priority: cleanup and clear_tokens/0 ask
            %% every process of the node, one after the other; at normal
            %% priority each answer waited a round of a saturated node's
            %% run queue (a stop of over a minute with 1,000 busy processes).
            process_flag(priority, high),
            S1 = stop_tracing(S),
            S2 = handle(lists:keysort(1, lists:reverse(maps:get(buf, S1))), S1#{buf := []}),
            send_window(in_flight_at_end(S2)),
            cleanup(maps:get(tr, S2), all_mfas(S2), self()),
            {Cleared, Left} = clear_tokens(),
            maps:get(sink, S2) ! {fp_req_stopped, ?PROTO, Cleared, Left},
            exit(normal);
        {nodedown, _} ->
            process_flag(priority, high),
            cleanup(maps:get(tr, S), all_mfas(S), self()),
            _ = clear_tokens(),
            exit(normal);
        {'EXIT', Guardian, _} when Guardian =:= map_get(guardian, S) ->
            process_flag(priority, high),
            cleanup(maps:get(tr, S), all_mfas(S), self()),
            _ = clear_tokens(),
            unload_self(),
            exit(normal);
        _ ->
            loop(S)
    end.

all_mfas(#{entry := E, tier_mfas := T}) -> E ++ T.

%% At stop: the patterns off, then every trace message they made, up to
%% the VM's word that all are delivered (trace_delivered), so that each
%% entry call the counter saw while traced is heard of.
stop_tracing(S0) ->
    %% the node's count ends where tracing does
    S = at_high_priority(fun() ->
                                 entry_pattern(S0, false),
                                 {Calls, T, S1} = mark_calls(S0, 'end'),
                                 tier_patterns(S1, false),
                                 S1#{calls_final := Calls, final_ts := T}
                         end),
    Ref = erlang:trace_delivered(all),
    drain(Ref, now_mono() + ?DELIVERED_MS * 1000, S).

drain(Ref, Deadline, S) ->
    receive
        {trace_ts, _, _, _, _} = M -> drain(Ref, Deadline, add(M, S));
        {trace_ts, _, _, _, _, _} = M -> drain(Ref, Deadline, add(M, S));
        {trace_delivered, all, Ref} -> drain_rest(S)
    after max(0, Deadline - now_mono()) div 1000 -> S
    end.

drain_rest(S) ->
    receive
        {trace_ts, _, _, _, _} = M -> drain_rest(add(M, S));
        {trace_ts, _, _, _, _, _} = M -> drain_rest(add(M, S))
    after 0 -> S
    end.

%% The requests still running at the end.
in_flight_at_end(#{reqs := Reqs} = S) ->
    bump(in_flight, maps:size(Reqs), S).

%% Held as {MonotonicUs, Message}; a message much later than its stamp
%% trips the breaker. Each entry call is counted as it arrives, and again
%% where it ends if that is not a request (dropped here unread).
add(M, S0) ->
    Ns = element(tuple_size(M), M),
    case S0 of
        #{final_ts := F} when is_integer(F), Ns > F -> S0;    % after the node's count ended
        #{paused_until := undefined, buf := Buf, max_late := Late} ->
            {Entry, S} = heard(M, Ns, S0),
            Ts = erlang:convert_time_unit(Ns, nanosecond, microsecond),
            case now_mono() - Ts > Late of
                true -> count_if(Entry, queued, trip(S));
                false -> S#{buf := [{Ts, M} | Buf]}
            end;
        _ -> dropped_unread(M, S0)
    end.

%% An entry call heard of, and whether a pause's count holds it too.
heard(M, Ns, #{ranges := Ranges} = S) ->
    case entry_call(M, S) of
        true ->
            In = lists:any(fun({From, To}) -> Ns > From andalso Ns =< To end, Ranges),
            {true, count_if(In, overlap, bump(entry_msgs, 1, S))};
        false -> {false, S}
    end.

%% A message dropped unread (at a trip, or while paused).
dropped_unread(M, S0) ->
    Ns = element(tuple_size(M), M),
    case S0 of
        #{final_ts := F} when is_integer(F), Ns > F -> S0;
        _ ->
            {Entry, S} = heard(M, Ns, S0),
            count_if(Entry, queued, S)
    end.

%% An entry call's trace message (its match spec sends no term of its own:
%% five elements; a tier's call names the token: six).
entry_call({trace_ts, _, call, {M, F, Args}, _}, #{entry := Entry}) ->
    lists:member({M, F, length(Args)}, Entry);
entry_call(_, _) -> false.

count_if(true, Key, S) -> bump(Key, 1, S);
count_if(false, _, S) -> S.

tick(S0) ->
    Now = now_mono(),
    S = breaker(Now, S0),
    %% in arrival order, so that the stable sort keeps a process's call
    %% before its return when both carry the same microsecond
    {Ready, Keep} = lists:partition(fun({Ts, _}) -> Ts =< Now - ?REORDER_MS * 1000 end,
                                    lists:reverse(maps:get(buf, S))),
    S1 = handle(lists:keysort(1, Ready), S#{buf := lists:reverse(Keep)}),
    S2 = sampling(reload_check(S1)),
    case now_us() - maps:get(window_start, S2) >= maps:get(every, S2) of
        true -> send_window(S2);
        false -> S2
    end.

breaker(Now, #{paused_until := Until} = S) when Until =/= undefined ->
    case Now >= Until of
        true ->
            S1 = at_high_priority(fun() ->
                                          tier_patterns(S, true),
                                          entry_pattern(S, true),
                                          pause_account(S)
                                  end),
            S1#{paused_until := undefined, entry_on := true, ranges := close_range(S1)};
        false -> S
    end;
breaker(_, #{max_queue := Max} = S) ->
    case erlang:process_info(self(), message_queue_len) of
        {message_queue_len, N} when N > Max -> trip(S);
        _ -> S
    end.

%% Everything off, the queue and the requests in flight dropped; back on
%% after a backoff that doubles while the node stays overloaded. The entry
%% calls among the dropped messages are counted (queued), the requests in
%% flight too (dropped), and the entry counter read: the calls from here
%% to the resume are the pause's.
trip(#{reqs := Reqs, backoff := B0, last_trip := Last, buf := Buf} = S0) ->
    {Calls, T, S1} = at_high_priority(fun() ->
                                              CTS = mark_calls(S0, start),
                                              entry_pattern(S0, false),
                                              tier_patterns(S0, false),
                                              CTS
                                      end),
    Unread = length([M || {_, M} <- Buf, entry_call(M, S1)]),
    %% the last few pauses: a message arrives within seconds of its stamp
    S2 = S1#{ranges := lists:sublist([{T, infinity} | maps:get(ranges, S1)], 8)},
    S = flush_trace(S2),
    #{counts := C} = S,
    Now = now_mono(),
    %% a minute without a trip starts the backoff over
    B = case Now - Last > 60000000 of true -> ?BACKOFF_MS; false -> B0 end,
    %% a tier that returns later under a dropped request's token: after
    %% its request (see finish_frame/4)
    Ended = maps:merge(maps:get(ended, S), maps:map(fun(_, _) -> true end, Reqs)),
    S#{paused_until := Now + B * 1000, paused_since := Now, backoff := min(B * 2, ?MAX_BACKOFF_MS), last_trip := Now,
       buf := [], stacks := #{}, depth := #{}, pause_mark := Calls, ended := Ended,
       reqs := #{}, counts := C#{pauses := maps:get(pauses, C) + 1,
                                 queued := maps:get(queued, C) + Unread,
                                 dropped := maps:get(dropped, C) + maps:size(Reqs)}}.

%% The entry calls the node made since the start: the call_count of each
%% entry function. A module loaded again starts its count from zero (the
%% new code has no pattern until reload_check/1 sets it again): what the
%% old code counted up to the last read is kept in calls_base.
read_calls(#{calls_final := Final} = S) when is_integer(Final) -> {Final, S};
read_calls(#{entry := Entry, tr := Tr, calls_seen := Seen0, calls_base := Base0} = S) ->
    {Seen, Base} =
        lists:foldl(fun(MFA, {Sn, B}) ->
                            Old = maps:get(MFA, Sn, 0),
                            case attempt(fun() -> tr_info(Tr, MFA, call_count) end) of
                                {call_count, N} when is_integer(N), N >= Old -> {Sn#{MFA => N}, B};
                                {call_count, N} when is_integer(N) -> {Sn#{MFA => N}, B + Old};
                                _ -> {Sn, B}
                            end
                    end, {Seen0, Base0}, Entry),
    {Base + lists:sum(maps:values(Seen)), S#{calls_seen := Seen, calls_base := Base}}.

%% The pause so far into the counts: its time and the entry calls the
%% counter saw in it (none of them traced: the patterns were off).
pause_account(#{paused_until := undefined} = S) -> S;
pause_account(#{paused_since := Since, pause_mark := Mark} = S0) ->
    Now = now_mono(),
    {Calls, T, S} = mark_calls(S0, 'end'),
    bump(untraced, Calls - Mark, bump(paused_us, Now - Since, S#{paused_since := Now, pause_mark := Calls,
                                                                  pause_read := T})).

%% The pause's range of trace timestamps ends at the resume's read.
close_range(#{ranges := [{From, infinity} | Rest], pause_read := T}) -> [{From, T} | Rest];
close_range(#{ranges := Ranges}) -> Ranges.

%% The queue dropped; the entry calls in it counted.
flush_trace(S) ->
    receive
        {trace_ts, _, _, _, _} = M -> flush_trace(dropped_unread(M, S));
        {trace_ts, _, _, _, _, _} -> flush_trace(S)
    after 0 -> S
    end.

%% Sampling below 100 %: the entry pattern is on for that share of each
%% second, so about that share of requests start.
sampling(#{sample := 1000} = S) -> S;
sampling(#{paused_until := U} = S) when U =/= undefined -> S;
sampling(#{sample := P, entry_on := On} = S) ->
    %% monotonic time may be negative: count from the session's start
    Want = ((now_mono() - maps:get(sample_start, S)) div 1000) rem 1000 < P,
    case Want =:= On of
        true -> S;
        false -> entry_pattern(S, Want), S#{entry_on := Want}
    end.

%% ---------------------------------------------------------------- requests

handle([], S) -> S;
handle([{Ts, M} | Rest], S) -> handle(Rest, event(M, Ts, S)).

event({trace_ts, Pid, call, {Mod, F, Args}, Tok, _}, Ts, #{tier_of := TierOf} = S) ->
    MFA = {Mod, F, length(Args)},
    case {maps:find(MFA, TierOf), Tok} of
        {{ok, Tier}, {_, Label, _, _, _}} ->
            %% only the outermost call of a tier in a process counts: a
            %% depth per (process, tier) tells in O(1), even for recursion
            #{depth := D} = S,
            N = maps:get({Pid, Tier}, D, 0),
            push(Pid, {tier, MFA, Ts, Tier, Label, N =:= 0}, S#{depth := D#{{Pid, Tier} => N + 1}});
        _ -> S
    end;
event({trace_ts, Pid, call, {Mod, F, Args}, _}, Ts, #{reqs := Reqs} = S) ->
    MFA = {Mod, F, length(Args)},
    case {lists:member(MFA, maps:get(entry, S)), maps:is_key(Pid, Reqs)} of
        {true, false} ->
            {Id, S1} = identity(Mod, F, Args, S),
            R = #{id => Id, start => Ts, tiers => #{}, pids => #{Pid => true}},
            push(Pid, {entry, MFA, Ts}, S1#{reqs := Reqs#{Pid => R}});
        {true, true} ->
            %% an entry call inside a request of the same process: part of it
            push(Pid, {nested, MFA, Ts}, bump(nested, 1, S));
        _ ->
            push(Pid, {nested, MFA, Ts}, S)
    end;
event({trace_ts, Pid, Why, MFA, _, _}, Ts, #{stacks := St} = S)
  when Why =:= return_from; Why =:= exception_from ->
    case pop(MFA, maps:get(Pid, St, [])) of
        {Frame, Gone, Rest} ->
            S1 = lists:foldl(fun(F, Acc) -> shallower(Pid, F, Acc) end, S, [Frame | Gone]),
            finish_frame(Frame, Pid, Ts, S1#{stacks := put_stack(Pid, Rest, St)});
        none -> S
    end;
event(_, _, S) ->
    S.

push(Pid, Frame, #{stacks := St} = S) ->
    S#{stacks := St#{Pid => [Frame | maps:get(Pid, St, [])]}}.

put_stack(Pid, [], St) -> maps:remove(Pid, St);
put_stack(Pid, Rest, St) -> St#{Pid => Rest}.

%% The frame of MFA nearest the top: frames above it lost their return
%% (a breaker pause, a throw past them) and go with it.
pop(MFA, Stack) ->
    case lists:splitwith(fun(F) -> element(2, F) =/= MFA end, Stack) of
        {Gone, [Frame | Rest]} -> {Frame, Gone, Rest};
        {_, []} -> none
    end.

shallower(Pid, {tier, _, _, Tier, _, _}, #{depth := D} = S) ->
    case maps:get({Pid, Tier}, D, 0) of
        N when N =< 1 -> S#{depth := maps:remove({Pid, Tier}, D)};
        N -> S#{depth := D#{{Pid, Tier} := N - 1}}
    end;
shallower(_, _, S) -> S.

finish_frame({tier, _, Call, Tier, Label, Outer}, Pid, Ts, #{reqs := Reqs} = S) ->
    case maps:find(Label, Reqs) of
        {ok, #{start := Start}} when Outer, Call < Start ->
            %% called before this request of the process began: an
            %% earlier one's, which had ended
            tier_out(after_end, Tier, bump(stray, 1, S));
        {ok, #{tiers := Ti, pids := Ps} = R} when Outer ->
            R1 = R#{tiers := Ti#{Tier => maps:get(Tier, Ti, 0) + (Ts - Call)}, pids := Ps#{Pid => true}},
            S#{reqs := Reqs#{Label => R1}};
        {ok, _} -> S;
        error when Outer ->
            Why = case is_map_key(Label, maps:get(ended, S)) orelse is_map_key(Label, maps:get(ended_prev, S)) of
                      true -> after_end;
                      false -> no_request
                  end,
            tier_out(Why, Tier, bump(stray, 1, S));
        error -> bump(stray, 1, S)
    end;
finish_frame({entry, _, _}, Pid, Ts, #{reqs := Reqs} = S) ->
    case maps:take(Pid, Reqs) of
        {R, Reqs1} -> request_done(R#{pid => Pid}, Ts, S#{reqs := Reqs1});
        error -> S
    end;
finish_frame(_, _, _, S) ->
    S.

%% A tier call outside the table, by why: after_end, no_request.
tier_out(Why, Tier, #{tier_out := Out} = S) ->
    {A, N} = maps:get(Tier, Out, {0, 0}),
    S#{tier_out := Out#{Tier => case Why of after_end -> {A + 1, N}; no_request -> {A, N + 1} end}}.

request_done(#{pid := Pid} = R, Ts, #{ended := Ended} = S) ->
    request_done(maps:remove(pid, R), Ts, S#{ended := Ended#{Pid => true}});
request_done(#{id := Id, start := Start, tiers := Tiers, pids := Pids}, Ts,
             #{hist := H, counts := C} = S) ->
    Total = Ts - Start,
    H1 = maps:fold(fun(Tier, Us, Acc) -> hist_add({Id, Tier}, Us, Acc) end,
                   hist_add({Id, <<"_total">>}, Total, H), Tiers),
    %% counted as the table counts them: requests that finished
    Failed = case Id of <<"_identity_fun_failed">> -> 1; _ -> 0 end,
    S1 = S#{hist := H1, counts := C#{requests := maps:get(requests, C) + 1,
                                     id_failed := maps:get(id_failed, C) + Failed}},
    case maps:get(slow, S1) of
        Slow when Slow > 0, Total >= Slow -> slow(Id, Total, Tiers, Pids, S1);
        _ -> S1
    end.

slow(Id, Total, Tiers, Pids, #{slow_list := L} = S) when length(L) < ?MAX_SLOW ->
    Entry = {Id, Total, lists:sort(maps:to_list(Tiers)),
             [list_to_binary(pid_to_list(P)) || P <- maps:keys(Pids)]},
    S#{slow_list := [Entry | L]};
slow(_, _, _, _, #{counts := C} = S) ->
    S#{counts := C#{slow_left := maps:get(slow_left, C) + 1}}.

%% ---------------------------------------------------------------- identity

identity(M, F, Args, #{id := How, ids := Ids} = S0) ->
    {Id, S} = case How of
                  {arg, N} when N >= 1, N =< length(Args) -> {text(lists:nth(N, Args)), S0};
                  {arg, _} -> {<<"?">>, S0};
                  {'fun', Fun} ->
                      case run_fun(Fun, {M, F, Args}) of
                          {ok, V} -> {text(V), S0};
                          failed -> {<<"_identity_fun_failed">>, S0}
                      end;
                  none -> {atom_to_binary(F, utf8), S0}
              end,
    %% a bounded number of identities: the rest are counted together
    case maps:is_key(Id, Ids) orelse maps:size(Ids) < ?MAX_IDENTITIES of
        true -> {Id, S#{ids := Ids#{Id => true}}};
        false -> {<<"_other">>, S}
    end.

bump(Key, N, #{counts := C} = S) ->
    S#{counts := C#{Key := maps:get(Key, C) + N}}.

%% The user's fun runs in a process of its own, with a deadline and a
%% bounded heap: a fun that loops, grows or crashes cannot take the tracer
%% along. A failure names that one request "_identity_fun_failed" and is
%% counted; the next request runs the fun again.
%% The deadline is the fun's, not the host's: on a node (or host) so busy
%% that the fun's process has not had a scheduler yet (runnable, or running
%% on a scheduler thread the OS has not run, next to no reductions), or
%% that waits in the code server for a module the fun needs, missing 100 ms
%% of wall time is not the fun's failure, and it waits again, up to 1 s.
%% A fun that loops has run thousands of reductions by then, one that
%% blocks is waiting: both fail at 100 ms.
%% A fun that ended as its deadline passed, its DOWN still on the way,
%% named its request: on a saturated node 1 to 2 requests in 50 were
%% counted failed that way.
run_fun(Fun, Arg) ->
    {Pid, Ref} = spawn_monitor(fun() ->
                                       process_flag(max_heap_size, 100000),
                                       exit({identity, Fun(Arg)})
                               end),
    await_fun(Pid, Ref, ?IDENTITY_FUN_MAX_MS div ?IDENTITY_FUN_MS - 1).

await_fun(Pid, Ref, Again) ->
    receive
        {'DOWN', Ref, process, Pid, {identity, V}} -> {ok, V};
        {'DOWN', Ref, process, Pid, _} -> failed
    after ?IDENTITY_FUN_MS ->
            case Again > 0 andalso starved(Pid) of
                true -> await_fun(Pid, Ref, Again - 1);
                false ->
                    %% it may have ended just now, its DOWN not yet here
                    exit(Pid, kill),
                    receive
                        {'DOWN', Ref, process, Pid, {identity, V}} -> {ok, V};
                        {'DOWN', Ref, process, Pid, _} -> failed
                    end
            end
    end.

starved(Pid) ->
    case erlang:process_info(Pid, [status, reductions, current_function]) of
        [{status, S}, {reductions, R}, _] when S =:= runnable; S =:= running ->
            R < ?IDENTITY_FUN_REDS;
        %% loading a module it needs (erl_eval's eval_bits for a binary,
        %% the first time): the code server's wait, not the fun's
        [{status, waiting}, _, {current_function, {code_server, call, 1}}] -> true;
        _ -> false
    end.

text(A) when is_atom(A) -> cut(atom_to_binary(A, utf8));
text(B) when is_binary(B) -> cut(B);
text(L) when is_list(L) ->
    case attempt(fun() -> unicode:characters_to_binary(L) end) of
        B when is_binary(B) -> cut(B);
        _ -> cut(iolist_to_binary(io_lib:format("~0tP", [L, 5])))
    end;
text(T) -> cut(iolist_to_binary(io_lib:format("~0tP", [T, 5]))).

cut(B) when byte_size(B) > ?IDENTITY_BYTES -> binary:part(B, 0, ?IDENTITY_BYTES);
cut(B) -> B.

%% ---------------------------------------------------------------- histograms

%% Log-linear buckets: exact below 32 us, then 32 per power of two (about
%% 3 % wide). The C side (requests/hist.c) reads the same indexes.
bucket(V) when V < 32 -> max(V, 0);
bucket(V) ->
    E = log2(V, 0),
    32 * (E - 4) + (V bsr (E - 5)) - 32.

log2(V, E) when V > 1 -> log2(V bsr 1, E + 1);
log2(_, E) -> E.

hist_add(Key, Us, H) ->
    B = bucket(Us),
    case maps:find(Key, H) of
        {ok, {C, Sum, Max, Bs}} ->
            H#{Key := {C + 1, Sum + Us, max(Max, Us), Bs#{B => maps:get(B, Bs, 0) + 1}}};
        error ->
            H#{Key => {1, Us, Us, #{B => 1}}}
    end.

send_window(S0) ->
    {Calls, S1} = read_calls(pause_account(S0)),
    #{sink := Sink, hist := H, slow_list := Slow, counts := C, reloaded := Rel, tier_out := Out} = S = S1,
    Rows = [{Id, Tier, N, Sum, Max, lists:sort(maps:to_list(Bs))}
            || {{Id, Tier}, {N, Sum, Max, Bs}} <- maps:to_list(H)],
    Stats = {maps:get(requests, C), maps:get(stray, C), maps:get(pauses, C),
             case maps:get(paused_until, S) of undefined -> 0; _ -> 1 end,
             maps:get(slow_left, C), maps:get(dropped, C),
             [atom_to_binary(M, utf8) || M <- Rel],
             maps:get(id_failed, C), maps:get(paused_us, C), maps:get(untraced, C),
             Calls - maps:get(calls_last, S), maps:get(entry_msgs, C), maps:get(nested, C),
             maps:get(queued, C), maps:get(in_flight, C),
             [{Tier, A, N} || {Tier, {A, N}} <- maps:to_list(Out)], maps:get(overlap, C)},
    Sink ! {fp_req_window, ?PROTO, erlang:system_time(microsecond), Rows, lists:reverse(Slow), Stats},
    S#{hist := #{}, slow_list := [], reloaded := [], window_start := now_us(),
       calls_last := Calls, tier_out := #{}, ended := #{}, ended_prev := maps:get(ended, S),
       counts := C#{requests := 0, stray := 0, slow_left := 0, dropped := 0,
                    id_failed := 0, paused_us := 0, untraced := 0,
                    entry_msgs := 0, nested := 0, queued := 0, in_flight := 0, overlap := 0}}.

%% ---------------------------------------------------------------- reload

%% Loading a module again gives it code without our patterns; one
%% function per module tells. The new code gets them again and the window
%% names the module.
stamps(MFAs) ->
    maps:from_list([{M, MFA} || {M, _, _} = MFA <- MFAs]).

reload_check(#{paused_until := U} = S) when U =/= undefined -> S;
reload_check(#{last_reload_check := Last, stamps := Stamps} = S) ->
    Now = now_us(),
    case Now - Last >= ?RELOAD_CHECK_MS * 1000 of
        false -> S;
        true ->
            Lost = [M || {M, MFA} <- maps:to_list(Stamps), lost(MFA, S)],
            Lost =/= [] andalso reapply(Lost, S),
            S1 = recount(Lost, S),
            S1#{last_reload_check := Now, reloaded := lists:usort(Lost ++ maps:get(reloaded, S))}
    end.

%% The entry functions of modules loaded again count from zero on their
%% new code: what the old code had counted at the last read is kept (the
%% calls since then are lost with it).
recount(Mods, #{entry := Entry, calls_seen := Seen, calls_base := Base} = S) ->
    Old = [MFA || {M, _, _} = MFA <- Entry, lists:member(M, Mods)],
    S#{calls_base := Base + lists:sum([maps:get(MFA, Seen, 0) || MFA <- Old]),
       calls_seen := maps:without(Old, Seen)}.

lost(MFA, #{entry := Entry, entry_on := On, tr := Tr}) ->
    case lists:member(MFA, Entry) andalso not On of
        true -> false;
        false ->
            case attempt(fun() -> tr_info(Tr, MFA, traced) end) of
                {traced, false} -> true;
                {traced, _} -> false;
                _ -> true
            end
    end.

reapply(Mods, #{entry := Entry, tier_mfas := Tiers, entry_on := On, tr := Tr}) ->
    [tr_pattern(Tr, MFA, spec(On, entry_spec()), [local])
     || {M, _, _} = MFA <- Entry, lists:member(M, Mods)],
    %% the new code's count starts from zero (read_calls/1 keeps the old)
    [tr_pattern(Tr, MFA, true, [call_count])
     || {M, _, _} = MFA <- Entry, lists:member(M, Mods)],
    [tr_pattern(Tr, MFA, tier_spec(), [local])
     || {M, _, _} = MFA <- Tiers, lists:member(M, Mods)],
    ok.

%% ---------------------------------------------------------------- cleanup

%% A session of our own goes with all it holds; in the global session
%% exactly what we set goes.
cleanup({session, _} = Tr, _, _) -> tr_close(Tr);
cleanup(global, MFAs, Tracer) ->
    [attempt(fun() -> erlang:trace_pattern(MFA, false, [local]) end) || MFA <- MFAs],
    [attempt(fun() -> erlang:trace_pattern(MFA, false, [call_count]) end) || MFA <- MFAs],
    case erlang:trace_info(new, tracer) of
        {tracer, T} when T =:= Tracer; T =:= [] ->
            attempt(fun() -> erlang:trace(new, false, [call, monotonic_timestamp]) end);
        _ -> ok
    end,
    [attempt(fun() -> erlang:trace(P, false, [call, monotonic_timestamp]) end)
     || P <- erlang:processes(), ours_to_clear(P, Tracer)],
    ok.

ours_to_clear(P, Tracer) ->
    case {erlang:trace_info(P, tracer), erlang:trace_info(P, flags)} of
        {{tracer, T}, {flags, Fl}} when T =:= Tracer; T =:= [] -> lists:member(call, Fl);
        _ -> false
    end.

%% ---------------------------------------------------------------- tokens

%% Ends with no process carrying a token of ours, or gives up after
%% TOKEN_MAX_MS. @return {processes that carried one, still carrying}.
clear_tokens() ->
    Tag = our_flags(),
    case carriers(Tag) of
        {[], _} -> {0, 0};
        {Ours, Foreign} ->
            %% No one else's token and no sequential tracer: the node's
            %% reset clears every process and every queued message at once.
            Foreign =:= [] andalso system_seq_tracer() =:= false andalso
                erlang:system_flag(reset_seq_trace, true),
            Deadline = now_mono() + ?TOKEN_MAX_MS * 1000,
            {Seen, Left} = chase(Tag, Deadline, 0, {maps:from_list([{P, true} || P <- Ours]), #{}, #{}}),
            {maps:size(Seen), Left}
    end.

%% The flags of our tokens as the VM writes them (the bits are internal):
%% those of a token that has only monotonic_timestamp, made in a process
%% of its own.
our_flags() ->
    %% at high priority: on a saturated node a normal one waits a round
    {Pid, Ref} = spawn_opt(fun() ->
                                   _ = erlang:seq_trace(monotonic_timestamp, true),
                                   exit({flags, element(1, element(2, erlang:process_info(self(), sequential_trace_token)))})
                           end, [monitor, {priority, high}]),
    receive {'DOWN', Ref, process, Pid, {flags, F}} -> F;
            {'DOWN', Ref, process, Pid, _} -> none
    end.

%% {Ours, Foreign}: processes that carry one of our tokens (our flags and
%% a pid as label), and processes that carry another one.
carriers(Tag) ->
    lists:foldl(fun(P, {O, F} = Acc) ->
                        case attempt(fun() -> erlang:process_info(P, sequential_trace_token) end) of
                            {sequential_trace_token, []} -> Acc;
                            {sequential_trace_token, {T, L, _, _, _}} when T =:= Tag, is_pid(L) -> {[P | O], F};
                            {sequential_trace_token, _} -> {O, [P | F]};
                            _ -> Acc
                        end
                end, {[], []}, erlang:processes() -- [self()]).

%% Rounds: each process still carrying one gets the `call` flag, and the
%% modules on its stack a pattern that clears the token at the next call
%% (a receive loop calls itself again); done after TOKEN_QUIET_ROUNDS
%% rounds without one. Then the patterns and flags go.
chase(Tag, Deadline, Quiet, {Seen, Flagged, Mods} = St) ->
    {Ours, _} = carriers(Tag),
    Done = Quiet >= ?TOKEN_QUIET_ROUNDS orelse now_mono() > Deadline,
    case {Ours, Done} of
        {_, true} ->
            [attempt(fun() -> erlang:trace_pattern(MFA, false, [local]) end) || MFAs <- maps:values(Mods), MFA <- MFAs],
            [attempt(fun() -> erlang:trace(P, false, [call]) end) || P <- maps:keys(Flagged)],
            {Seen, length(Ours)};
        {[], false} ->
            receive after ?TOKEN_ROUND_MS -> ok end,
            chase(Tag, Deadline, Quiet + 1, St);
        {_, false} ->
            Seen1 = lists:foldl(fun(P, A) -> A#{P => true} end, Seen, Ours),
            Flagged1 = lists:foldl(fun flag_carrier/2, Flagged, Ours),
            Mods1 = lists:foldl(fun clear_pattern/2, Mods,
                                lists:usort([M || P <- Ours, M <- stack_modules(P)])),
            receive after ?TOKEN_ROUND_MS -> ok end,
            chase(Tag, Deadline, 0, {Seen1, Flagged1, Mods1})
    end.

flag_carrier(P, Flagged) ->
    case attempt(fun() -> erlang:trace(P, true, [call, {tracer, self()}]) end) of
        1 -> Flagged#{P => true};
        _ -> Flagged   % gone, or traced by someone else
    end.

stack_modules(P) ->
    case attempt(fun() -> erlang:process_info(P, current_stacktrace) end) of
        {current_stacktrace, Frames} -> [M || {M, _, _, _} <- Frames, clearable(M)];
        _ -> []
    end.

%% Not the BIFs' modules, not ours.
clearable(M) ->
    not lists:member(M, [erlang, erts_internal, erts_code_purger, prim_eval, ?MODULE])
        andalso not lists:prefix("flameprof_", atom_to_list(M)).

%% The whole module in one call (each call of trace_pattern waits for the
%% schedulers), unless a function of it is traced by someone else.
clear_pattern(M, Mods) when is_map_key(M, Mods) -> Mods;
clear_pattern(M, Mods) ->
    Spec = [{'_', [{is_seq_trace}], [{set_seq_token, sequential_trace_token, []}, {message, false}]}],
    MFAs = [{M, F, A} || {F, A} <- functions(M)],
    Set = case lists:any(fun in_use/1, MFAs) of
              false ->
                  case attempt(fun() -> erlang:trace_pattern({M, '_', '_'}, Spec, [local]) end) of
                      N when is_integer(N), N > 0 -> [{M, '_', '_'}];
                      _ -> []
                  end;
              true -> [MFA || MFA <- MFAs, not in_use(MFA),
                              attempt(fun() -> erlang:trace_pattern(MFA, Spec, [local]) end) =:= 1]
          end,
    Mods#{M => Set}.

%% ---------------------------------------------------------------- helpers

now_mono() -> erlang:monotonic_time(microsecond).
now_us() -> erlang:monotonic_time(microsecond).

