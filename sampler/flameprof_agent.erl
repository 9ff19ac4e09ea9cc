%% flameprof_agent - the in-node half of flameprof.
%%
%% Loaded into the target by the flameprof C-node with code:load_binary/3
%% under a versioned module name (the build renames the module). Before it
%% touches any code, the C-node takes the node's one flameprof name: it
%% registers a lock process that runs no code of ours
%% (erlang:hibernate(erlang, exit, [normal]): it ends at its first message,
%% which an erlang:send_after/3 timer sends if no agent adopts it), so two
%% runs started together cannot both load, and neither can purge the other's
%% agent. The agent links
%% to the lock and kills it when it ends. One coordinator process runs at
%% high priority (see ?PRIO). Every window it selects the
%% busiest processes (reductions gained since the last window) and gives each
%% a worker; every round it asks all workers at once, so the process_info
%% signals are handled in parallel (one after another took 50-980 ms for 100
%% processes on a saturated node, in parallel about 1.3 ms: doc/benchmarks.md,
%% "Measurements behind the code"; doc/design.md has the agent's life cycle).
%%
%% A reader process, at low priority, reads where a module's receives are
%% (fp_receives.hrl) the first time a running process's stack tops in it, so
%% that a read served at a receive is known for one (served_at_receive/5).
%%
%% It ships as little as it can: each distinct stack, frame and seq_trace
%% label gets a small integer once, and a sample is a tuple of integers.
%% Batches go out with nosuspend sends and are counted when dropped, so the
%% node never waits for flameprof. When the C-node goes away (monitor_node)
%% or says stop, the agent restores backtrace_depth, stops its workers,
%% frees the name, deletes its own module and has it purged. A guardian
%% process, linked to the coordinator and trapping exits, does the same when
%% the coordinator dies in any other way (a crash, exit(Pid, kill)), and tells
%% the C-node at once; the coordinator does it, and tells, when the guardian
%% or the lock dies.
%%
%% Messages to the sink (the C-node's pid); sampler/decode.c reads them:
%%   {fp_started, Proto, Agent, OldDepth, Missing}
%%     (Missing: the --pid and --name texts that name no live process)
%%   {fp_error, Proto, agent_down, WhatText}  (the agent ended unasked)
%%   {fp_stopped, Proto, {Rounds, Samples, Dropped, Late, Missed}}
%%   {fp_batch, Seq, Info, Defs, Samples}
%%     Info = {RoundStartUs, RoundUs, LatenessUs, Asked, Answered,
%%             LateTotal, MissedTotal, DroppedTotal, Selected, SharePermille,
%%             CostPpm, Unseen, Work, AtOnce, BusyPermille}
%%     (Selected: the processes selected when the round began, each asked
%%     once per round; SharePermille: the part of them sampled in each
%%     round, 1000 unless the cost budget has lowered it; CostPpm: what
%%     sampling cost the node over the last budget window, in millionths
%%     of its schedulers, by the budget's model: 0 before the first window;
%%     Unseen, Work: since the agent started, the reductions of the node's
%%     processes other than ours (Work) and the part of them done by
%%     processes that no selection scan saw at both ends of its window
%%     (Unseen): born or dead within it, so never selectable; see scan/7.
%%     AtOnce: how many schedulers can run at the same time (at_once/0);
%%     BusyPermille: since the agent started, how many of the online ones
%%     were busy on average, in thousandths (the budget's
%%     scheduler_wall_time; -1 without a budget), which the C side weighs
%%     the on-CPU samples against where one can run at a time. A C side
%%     reads Info of 10, 11 and 13 too)
%%     Defs, in order, each before its first use:
%%       {frame, Id, Module, Function, Arity, File, Line}   (binaries, ints)
%%       {stack, Id, [FrameId]}                              (leaf first)
%%       {label, Id, Text}                                   (seq_trace label)
%%       {proc, Index, Pid, InitialCall, Name}
%%       reset                                               (forget all ids)
%%     Samples = [{TimeUs, ProcIndex, Status, StackId, LabelId (0: none),
%%                 {16 metrics in the order of common/sample.h}}]
%%     (StackId 0: the process was on a CPU but ran on to its receive
%%     before its stack could be read; no stack is known)
%% From the sink: stop.
-module(flameprof_agent).
-export([init/1, worker/5, scanner/2, guardian/4, scan/6, reader/1]).

-define(PROTO, 1).
-define(LOCK, flameprof_agent).          % registered name of the lock (sampler/agent.c): one agent per node
-define(MAX_IDS, 500000).                % intern table bounds; then a reset
-define(MAX_TAB_WORDS, 2097152).         % 16 MiB of intern table on the node
-define(MAX_PROCS, 100000).
-define(MAX_WAIT_STACKS, 65536).         % stacks remembered as waits (at_receive/5)
-define(MAX_RX_MODULES, 4096).           % modules whose receives are looked up (learn/2)
-define(MAX_RX_FILE, 1048576).           % .beam files larger are not read (reader/1)
-define(PRUNE_EVERY, 12).                % scans between prunings of dead pids
%% The first window's selection, like every later one, is by reductions
%% gained: the first scan reads every process's reductions, waits this
%% long (at most a window) and reads them again.
-define(BASELINE_MS, 200).
%% Priorities, chosen by measurement (doc/benchmarks.md, "Measurements
%% behind the code"): the coordinator and its workers at high, the guardian at
%% high (so a dead coordinator is cleaned up at once), the scans at normal
%% after the first. max is the runtime's own.
-ifndef(PRIO).
-define(PRIO, high).
-endif.
-define(SAMPLE_COST, 5).                 % reductions a sample may cost its target
%% What a sample costs the node, in microseconds of CPU, for the cost
%% budget (which acts only while the node's schedulers are busy): a full
%% sample (a signal to the target, which builds its stack, a worker's round
%% trip, the hash, the batch's encoding), a cheap one through a worker (the
%% round trip, no signal) and a cheap one the coordinator reads itself
%% (cheap/5: one process_info read directly, no message). The node's own
%% CPU time per sample, measured from outside (doc/benchmarks.md, figures
%% 6 and 7, and "Measurements behind the code"): a full sample 7-12 us on a quiet 2-core
%% machine, 15-22 us on the same machine under load from other work (with
%% the schedulers' spinning turned off, as on a busy node); a worker's
%% round trip 8-14 us; the coordinator's cheap read 0.2-0.5 us. The budget
%% counts with these rather than timing itself, since much of a full
%% sample's cost is spent by the sampled process handling the signal.
-define(FULL_SAMPLE_US, 12).
-define(CHEAP_SAMPLE_US, 8).
-define(COORD_CHEAP_US, 1).
%% What reading a waiting process's stack charges it, in reductions (see
%% remember/6).
-define(READ_CHARGE, 1).
%% What the selection scan costs per process of the node, the same way: a
%% figure measured (bench/fp_scan.erl: 525-641 ms of CPU on 1,000,000
%% processes on OTP 25 and 29), not the scan's own clock, whose wall time
%% on a saturated node is mostly waiting behind busier processes at normal
%% priority (it made the budget cut the samples to their floor).
-define(SCAN_PROC_US, 0.65).
-define(BUDGET_WINDOW_US, 1000000).      % the budget is checked this often
-define(MIN_SHARE, 0.02).                % never below 2 % of the asked rate
-define(BUSY, 0.9).                      % schedulers this busy: the node is busy
-define(MOVE_ROUNDS, 10).                % rounds on one scheduler (move/2)
-define(RAN_HALF, 1024).                 % rounds between halvings of the running counts (displaced/2)
%% The cheap items, read without a signal from a process that is not running;
%% its status is read apart, first (statuses/2).
-define(CHEAP_ITEMS, [reductions, message_queue_len, sequential_trace_token]).
%% The full read: no status, which the coordinator reads apart (statuses/2).
-define(ITEMS, [current_function, current_stacktrace, reductions,
                message_queue_len, memory, total_heap_size,
                garbage_collection, garbage_collection_info,
                sequential_trace_token]).

%% the watchdog (on_load), the lock adopted and ended, unload_self/0,
%% attempt/1: the life of any module of ours on the node (shared with the
%% tracers)
-include("fp_life.hrl").

-record(s, {sink, sink_node, top, period_us, every_us,
            old_depth, explicit_pids, explicit_names, tab,
            next_id = 1, procs = #{}, next_proc = 1,
            workers = #{},        % worker pid => {target pid, proc idx, info wanted}
            by_target = #{},      % target pid => worker pid
            busy = #{},           % worker pid => round it has not answered yet
            %% target pid => {Lo, Hi, StackId, Metrics, Status} of its last
            %% sample, while the coordinator reads it itself (see cheap/5)
            last = #{},
            scanner,              % the process that picks the busiest
            %% module => true, and {module, line} => true for each line a
            %% receive of its is read at (learn/2, served_at_receive/5);
            %% written here, read by the workers
            rx,
            rx_modules = 0,       % modules asked of the reader
            reader,               % the process that reads them (reader/1)
            scanning = false,     % a scan has been asked for and not answered
            next_round, next_select, round = 0, reset_round = 0,
            next_slot,            % start of the period the next round is due in (round/2)
            select_round = 0,     % round number at the last selection
            seq = 0, defs = [], pending = [], rounds = 0, samples = 0, dropped = 0,
            last_send = 0,        % when the last batch went out (heartbeat)
            late = 0, missed = 0, dict_key,
            dicts = #{},          % target pid => {cached, InitialCall, Label}, once read
                                  % (OTP before 26.2: whole dictionaries)
            lock,                 % the lock process holding ?LOCK (linked)
            guardian,             % restores the node if this process dies
            %% the cost budget: at most budget_us of sampling per second
            %% while the node is busy (0: no budget)
            budget_us = 0,
            share = 1.0,          % part of the selected processes asked each round
            credit = 0.0,         % fractional processes owed to the next round
            turn = 0,             % where the next round's part starts
            win_start = 0, win_cost = 0,
            %% what sampling cost over the last window, millionths of the
            %% schedulers (the budget's model; for the status line)
            cost_ppm = 0,
            %% since the start, from the scans: the node's work (reductions
            %% of processes not ours) and the part of it no scan could see
            unseen = 0, work = 0,
            scheds = 1,           % schedulers online at the start
            %% the selection scan's own time, per second of the window it
            %% serves (the last scan's microseconds over --every)
            scan_per_s = 0.0,
            node_busy = false,    % the schedulers were busy at the last check
            sched = 0,            % the scheduler the coordinator is bound to (0: none), see move/2
            %% stack id => true: the stacks any target was seen waiting at
            %% (at_receive/5), at most ?MAX_WAIT_STACKS; ids restart at a reset
            waits = #{},
            waited = #{},         % target pid => the stack of its last wait (waited/5)
            %% target pid => {status code, stack id drawn} of its last sample
            %% (drawable/2), kept whatever the status, where `last` is not
            prior = #{},
            %% worker pid => #{scheduler => how often the status pass, made
            %% on that scheduler, read its target running} (halved every
            %% ?RAN_HALF rounds): the weights of the draw in displaced/2
            ran = #{},
            sched_wall,           % statistics(scheduler_wall_time) at win_start
            %% since the start, from the budget's windows: the normal
            %% schedulers' active time and their wall time, summed over the
            %% schedulers (scheduler_wall_time's units; 0: no budget, no flag)
            active = 0, wall = 0,
            busy_pm = -1,         % busy_permille/2 of them, at the last budget window
            at_once = 1}).        % at_once/0, at the last budget window

%% ---------------------------------------------------------------- start

%% Lock is the process the C-node registered as ?LOCK; LockTimer the
%% erlang:send_after/3 timer that ends it if we never start.
init(Opts) ->
    #{sink := Sink, top := Top, hz := Hz, every_ms := EveryMs, depth := Depth,
      pids := Pids, names := Names, lock := Lock, lock_timer := LockTimer,
      max_cost_ppm := MaxCostPpm} = Opts,
    process_flag(trap_exit, true),
    Node = node(Sink),
    erlang:monitor_node(Node, true),
    %% Linked to the C-node too, so that our end by any means (all of the
    %% agent's processes killed at once included, where nothing is left
    %% to say so) reaches it at once as an exit signal, not after its
    %% silence timeout; it then restores the node itself.
    link(Sink),
    case adopt_lock(Lock, LockTimer) of
        true ->
            %% The guardian raises the depth itself (OTP 25 cannot read it
            %% without setting it), so from that moment on something that
            %% knows the old value outlives this process whatever happens.
            Guardian = spawn_opt(?MODULE, guardian, [self(), Sink, Lock, Depth],
                                 [link, {priority, high}]),
            Old = receive
                      {depth_raised, Guardian, D} -> D;
                      {'EXIT', Guardian, _} -> exit(Lock, kill), unload_self(), exit(normal)
                  end,
            Tab = ets:new(?MODULE, [set, protected, {read_concurrency, true}]),
            Scanner = spawn_opt(?MODULE, scanner, [self(), 0], [link, {priority, high}]),
            Rx = ets:new(flameprof_rx, [set, protected, {read_concurrency, true}]),
            Reader = spawn_opt(?MODULE, reader, [self()], [link, {priority, low}]),
            Now = now_us(),
            Period = max(1, round(1000000 / Hz)),
            S = #s{sink = Sink, sink_node = Node, top = Top, scanner = Scanner,
                   rx = Rx, reader = Reader,
                   period_us = Period,
                   every_us = EveryMs * 1000, old_depth = Old,
                   explicit_pids = Pids, explicit_names = Names, tab = Tab,
                   next_round = Now + jitter(Period), next_slot = Now,
                   next_select = Now,
                   dict_key = dict_key_supported(), lock = Lock, guardian = Guardian,
                   budget_us = MaxCostPpm * erlang:system_info(schedulers_online),
                   scheds = erlang:system_info(schedulers_online),
                   at_once = at_once(), win_start = Now},
            Missing = [T || T <- Pids, not is_pid(to_pid(T)) orelse
                                           not is_process_alive(to_pid(T))] ++
                      [name_text(N) || N <- Names, not is_pid(whereis_bin(N))],
            Sink ! {fp_started, ?PROTO, self(), Old, Missing},
            %% after the start is reported: turning the flag on is a call
            %% to a normal-priority server, slow on a saturated node
            ok = sched_wall_on(MaxCostPpm),
            loop(S#s{win_start = now_us(), sched_wall = sched_wall(MaxCostPpm)});
        false ->
            lock_lost(Sink, {fp_error, ?PROTO, agent_down, <<"the lock was gone before the agent started">>},
                      Lock, true)
    end.

%% The guardian: it raises backtrace_depth, and whatever ends the
%% coordinator, the node is restored. When
%% the coordinator ends on its own (finish/2) it has done all but the
%% module; for any other end the guardian restores backtrace_depth (the
%% workers, the scanner and the reader are linked to the coordinator and
%% die with it),
%% frees the name and tells the C-node. Either way it deletes the module
%% last (the purge this starts kills whatever still runs our code).
guardian(Coordinator, Sink, Lock, Depth) ->
    process_flag(trap_exit, true),
    OldDepth = erlang:system_flag(backtrace_depth, Depth),
    Coordinator ! {depth_raised, self(), OldDepth},
    receive
        {'EXIT', Coordinator, normal} -> ok;
        {'EXIT', Coordinator, Why} ->
            erlang:system_flag(backtrace_depth, OldDepth),
            exit(Lock, kill),
            tell_down(Sink, {fp_error, ?PROTO, agent_down, down_text(coordinator, Why)})
    end,
    unload_self().

down_text(Who, Why) ->
    text(iolist_to_binary(io_lib:format("~s ended: ~0tP", [Who, Why, 6]))).

%% OTP 26.2+ can read one key of another process's dictionary; older
%% releases copy the whole dictionary (see dict_items/2).
dict_key_supported() ->
    try erlang:process_info(self(), {dictionary, '$initial_call'}) of
        _ -> true
    catch error:badarg -> false
    end.

%% ---------------------------------------------------------------- main loop

loop(S0) ->
    Now = now_us(),
    S1 = case Now >= S0#s.next_select andalso not S0#s.scanning of
             true -> request_scan(S0, Now);
             false -> S0
         end,
    case Now >= S1#s.next_round of
        true -> loop(round(S1, Now));
        false ->
            Wait = max(0, (S1#s.next_round - Now + 999) div 1000),
            receive
                Msg -> loop(other(Msg, S1))
            after Wait -> loop(S1)
            end
    end.

%% Messages that may arrive at any time.
other(stop, S) -> finish(S, stopped);
other({nodedown, Node}, #s{sink_node = Node} = S) -> finish(S, nodedown);
other({'EXIT', G, Why}, #s{guardian = G} = S) -> finish(S#s{guardian = undefined}, {down, guardian, Why});
other({'EXIT', L, Why}, #s{lock = L} = S) -> finish(S, {down, lock, Why});
other({'EXIT', Sink, _}, #s{sink = Sink} = S) -> finish(S, nodedown);
other({sampled, W, R, T, St, Stack, Label, M, Info, Cost}, S) ->
    %% A reply to an earlier round: a late sample is still a true sample; it
    %% goes out with the next batch (the C side puts samples in time order).
    {S1, Sample} = take_sample(W, R, T, St, Stack, Label, M, Info, Cost, S),
    S1#s{late = S1#s.late + 1, busy = maps:remove(W, S1#s.busy),
         pending = add(Sample, S1#s.pending)};
other({scanned, Top, ScanUs, Unseen, Work}, S) ->
    select(Top, scan_spacing(ScanUs, S#s{scanning = false, scan_per_s = ScanUs * 1000000 / S#s.every_us,
                                         unseen = S#s.unseen + Unseen, work = S#s.work + Work}));
other({gone, W, _R}, S) -> drop_worker(W, S);
other({learn, M}, S) -> learn(M, S);
other({receives, M, {ok, Lines}}, S) ->
    ets:insert(S#s.rx, [{{M, L}, true} || L <- Lines]),
    S;
other({receives, _M, error}, S) -> S;
other({'EXIT', Reader, _}, #s{reader = Reader} = S) -> S#s{reader = undefined};
other({'EXIT', Scanner, _}, #s{scanner = Scanner} = S) ->
    S#s{scanner = spawn_opt(?MODULE, scanner, [self(), 0], [link, {priority, high}]), scanning = false};
other({'EXIT', W, _}, S) -> drop_worker(W, S);
other(_, S) -> S.

%% ---------------------------------------------------------------- selection

%% The scan runs in its own process at normal priority: walking every
%% process of a node (100,000 on a crowded one) must neither hold up the
%% sampling rounds nor take a scheduler away from the node's own work.
request_scan(S, Now) ->
    %% Handling our process_info signals costs the sampled process a few
    %% reductions (measured: about 0.5 per sample when read directly, more
    %% when it handles the signal itself). Without this discount an idle
    %% process, once picked, would stay "busy" because it is sampled. Under
    %% the cost budget each was sampled in only a part of the rounds.
    Cost = round(?SAMPLE_COST * (S#s.round - S#s.select_round) * S#s.share),
    Exclude = maps:merge(maps:from_list([{P, true} || P <- [self(), S#s.reader | induced(S#s.sink)],
                                                      is_pid(P)]),
                         S#s.workers),
    S#s.scanner ! {scan, Exclude, S#s.by_target, Cost, S#s.top,
                   min(?BASELINE_MS, S#s.every_us div 1000)},
    S#s{scanning = true, next_select = Now + S#s.every_us, select_round = S#s.round}.

%% Processes that work because we sample, never picked (the issue of a
%% Yaws node: they were among the busiest of an idle one): kernel_refc,
%% which keeps the scheduler_wall_time flag the cost budget turns on; the
%% handlers of signals to processes running dirty code (our reads among
%% them); and the distribution connection to flameprof, where a process
%% carries it (TLS and other carriers), which carries our batches.
induced(Sink) ->
    Named = [P || N <- [kernel_refc, erts_dirty_process_signal_handler,
                        erts_dirty_process_signal_handler_high,
                        erts_dirty_process_signal_handler_max],
                  P <- [whereis(N)], is_pid(P)],
    Ctrl = case lists:keyfind(node(Sink), 1, erlang:system_info(dist_ctrl)) of
               {_, C} when is_pid(C) -> [C];
               _ -> []
           end,
    Named ++ Ctrl.

%% The first scan runs at high priority, so that sampling starts at once even
%% on a saturated node; the later ones at normal priority. Each process's
%% reductions at the previous scan are kept in a private ETS table of this
%% process, with the scan that saw it last: rebuilding a map of 100,000
%% entries each window cost more than the scan itself, and on 1,000,000
%% processes the process dictionary (put/2) took 620 ms of a 760 ms scan and
%% 67 MB of heap that every garbage collection of the scanner walked; the
%% table took 370 ms, off the heap (doc/benchmarks.md). Processes not seen
%% for ?PRUNE_EVERY scans (dead) are dropped from it.
%%
%% What the scan cost goes to the coordinator for the cost budget: the
%% model of ?SCAN_PROC_US per process (the VM has no per-process CPU clock).
%% With it, what the window's work was and how much of it no scan could see
%% (see scan/7).
scanner(Agent, Scans) ->
    Tab = case Scans of
              0 -> ets:new(flameprof_scan, [set, private]);
              _ -> get(flameprof_scan)
          end,
    put(flameprof_scan, Tab),
    receive
        {scan, Exclude, ByTarget, Cost, N, BaselineMs} ->
            Scans == 0 andalso baseline(Tab, BaselineMs),
            {Top, Unseen, Work} = scan(Tab, Scans, Exclude, ByTarget, Cost, N, get(flameprof_mark)),
            Scans == 0 andalso process_flag(priority, normal),
            (Scans + 1) rem ?PRUNE_EVERY =:= 0 andalso
                ets:select_delete(Tab, [{{'_', '_', '$1'}, [{'<', '$1', Scans - ?PRUNE_EVERY}], [true]}]),
            Agent ! {scanned, Top, round(erlang:system_info(process_count) * ?SCAN_PROC_US), Unseen, Work},
            scanner(Agent, Scans + 1)
    end.

%% The node's reductions now (statistics(exact_reductions): with the
%% running processes' current slices; once a window, its cost does not
%% matter), and this process's own, kept in the dictionary as
%% flameprof_mark for the next scan: the node's work between two marks is
%% what the scan accounts for.
mark() ->
    {Total, _} = erlang:statistics(exact_reductions),
    {reductions, Own} = erlang:process_info(self(), reductions),
    put(flameprof_mark, {Total, Own}).

%% Before the first window's scan: every process's reductions now, then a
%% short wait, so that the first window picks by reductions gained like
%% every later one (by lifetime reductions it picked the long-lived idle
%% servers, and the first window looked unlike the others).
baseline(Tab, BaselineMs) ->
    Self = self(),
    mark(),
    fold_processes(fun(P, Acc) when P =:= Self -> Acc;
                      (P, Acc) ->
                           case erlang:process_info(P, reductions) of
                               {reductions, R} -> ets:insert(Tab, {P, R, 0});
                               undefined -> ok
                           end,
                           Acc
                   end, ok, erlang:function_exported(erlang, processes_next, 1)),
    receive after BaselineMs -> ok end.

%% The N processes that gained the most reductions since the previous scan
%% (Tab: {Pid, Reductions, Scan}), less what sampling them cost. Only a
%% process that did work in the window is kept on the way: a node of
%% 1,000,000 mostly idle processes leaves a short list, not one tuple per
%% process. Exported for bench/fp_scan.erl.
scan(Tab, Scan, Exclude, ByTarget, Cost, N) ->
    {Top, _, _} = scan(Tab, Scan, Exclude, ByTarget, Cost, N, undefined),
    Top.

%% The same, and what selection cannot see (issue 33): of the node's
%% reductions since the previous mark (Mark, see mark/0), those of
%% processes this scan saw at both ends of the window are seen; those of
%% ours (Exclude, this process) are left out; the rest (Unseen) was done by
%% processes born or dead within the window, which no scan could select
%% (a web server's process per request). Returns {Top, Unseen, Work}, Work
%% the node's reductions less ours; both 0 without a mark.
scan(Tab, Scan, Exclude, ByTarget, Cost, N, Mark) ->
    Self = self(),
    Fold = fun(P, Acc) when P =:= Self -> Acc;
              (P, {Busy, Seen, Ours} = Acc) ->
                   case erlang:process_info(P, reductions) of
                       {reductions, R} ->
                           {Old, Both} = prev_reds(Tab, Scan, P, R),
                           case is_map_key(P, Exclude) of
                               true when Both -> {Busy, Seen, Ours + R - Old};
                               true -> {Busy, Seen, Ours + R};
                               false ->
                                   Seen1 = case Both of
                                               true -> Seen + R - Old;
                                               false -> Seen
                                           end,
                                   case R - Old - sample_cost(P, ByTarget, Cost) of
                                       Gain when Gain > 0 -> {[{Gain, P} | Busy], Seen1, Ours};
                                       _ -> {Busy, Seen1, Ours}
                                   end
                           end;
                       undefined -> Acc
                   end
           end,
    Mark =:= undefined orelse mark(),
    {Busy, Seen, Ours} = fold_processes(Fold, {[], 0, 0}, erlang:function_exported(erlang, processes_next, 1)),
    Top = [P || {_, P} <- lists:sublist(lists:reverse(lists:sort(Busy)), N)],
    case {Mark, get(flameprof_mark)} of
        {{Total0, Own0}, {Total1, Own1}} ->
            Work = max(0, Total1 - Total0 - (Own1 - Own0) - Ours),
            {Top, min(Work, max(0, Work - Seen)), Work};
        _ -> {Top, 0, 0}
    end.

%% Folds over every process of the node. OTP 28 walks the process table
%% with an iterator (erlang:processes_iterator/0), so no list of all pids is
%% built (16 bytes a process, 16 MB on 1,000,000); before 28, the list.
%% Iter: whether the node has the iterator (checked at run time: the module
%% is built once and loaded on nodes of every release).
fold_processes(Fun, Acc, true) ->
    fold_iter(Fun, Acc, erlang:processes_next(erlang:processes_iterator()));
fold_processes(Fun, Acc, false) ->
    lists:foldl(Fun, Acc, erlang:processes()).

fold_iter(_, Acc, none) -> Acc;
fold_iter(Fun, Acc, {P, It}) -> fold_iter(Fun, Fun(P, Acc), erlang:processes_next(It)).

%% A process's reductions at the previous scan, and whether that scan (or
%% the baseline, for the first) saw it: {0, false} for one born since.
prev_reds(Tab, Scan, P, R) ->
    Old = case ets:lookup(Tab, P) of
              [{_, O, Last}] -> {O, Last >= Scan - 1};
              [] -> {0, false}
          end,
    ets:insert(Tab, {P, R, Scan}),
    Old.

%% A scan that alone would take more than half the cost budget while the
%% node is busy (1,000,000 processes: about 0.6 s of CPU, 12 % of a
%% scheduler at --every 5s) comes less often instead: the next one waits
%% until the scan's time is half the budget over the interval. Counting it
%% alone would only cut the samples to their floor, the scan going on.
scan_spacing(_ScanUs, #s{budget_us = 0} = S) -> S;
scan_spacing(_ScanUs, #s{node_busy = false} = S) -> S;
scan_spacing(_ScanUs, #s{scan_per_s = PerS, budget_us = B} = S) when PerS =< B / 2 -> S;
scan_spacing(ScanUs, #s{budget_us = B} = S) ->
    Every = round(ScanUs * 1000000 / (B / 2)),
    S#s{scan_per_s = B / 2,
        next_select = max(S#s.next_select, S#s.next_select - S#s.every_us + Every)}.

%% Explicit targets are sampled whatever the scan found.
select(Top, S) ->
    Chosen = lists:usort(Top ++ explicit(S)),
    Keep = maps:from_list([{P, true} || P <- Chosen]),
    %% stop workers whose process left the top
    S1 = maps:fold(fun(T, W, Acc) ->
                           case is_map_key(T, Keep) of
                               true -> Acc;
                               false -> W ! stop, drop_worker(W, Acc)
                           end
                   end, S, S#s.by_target),
    S2 = lists:foldl(fun(P, Acc) -> ensure_worker(P, Acc) end, S1, Chosen),
    %% every worker reads names and initial calls once in this window
    Ws = maps:map(fun(_, {T, Idx, _}) -> {T, Idx, true} end, S2#s.workers),
    S2#s{workers = Ws}.

sample_cost(P, ByTarget, Cost) ->
    case is_map_key(P, ByTarget) of
        true -> Cost;
        false -> 0
    end.

explicit(#s{explicit_pids = Pids, explicit_names = Names}) ->
    [P || Text <- Pids, P <- [to_pid(Text)], is_pid(P)] ++
        [P || N <- Names, P <- [whereis_bin(N)], is_pid(P)].

to_pid(Text) ->
    try list_to_pid(binary_to_list(Text)) of
        P when node(P) =:= node() -> P;
        _ -> undefined
    catch error:badarg -> undefined
    end.

%% whereis_bin/1 and name_text/1 (shared with the calls tracer)
-include("fp_names.hrl").

ensure_worker(P, S) ->
    case is_map_key(P, S#s.by_target) of
        true -> S;
        false ->
            {Idx, S1} = proc_index(P, S),
            Dict = case S#s.dict_key of
                       true -> key;
                       false -> maps:get(P, S#s.dicts, unread)
                   end,
            W = spawn_opt(?MODULE, worker, [self(), P, S#s.tab, S#s.rx, Dict],
                          [link, {priority, ?PRIO}]),
            S1#s{workers = maps:put(W, {P, Idx, true}, S1#s.workers),
                 by_target = maps:put(P, W, S1#s.by_target)}
    end.

proc_index(P, S) ->
    case maps:find(P, S#s.procs) of
        {ok, Idx} -> {Idx, S};
        error ->
            Idx = S#s.next_proc,
            {Idx, S#s{procs = maps:put(P, Idx, S#s.procs), next_proc = Idx + 1}}
    end.

drop_worker(W, S) ->
    case maps:take(W, S#s.workers) of
        {{T, _, _}, Ws} ->
            unlink(W),
            S#s{workers = Ws, by_target = maps:remove(T, S#s.by_target),
                busy = maps:remove(W, S#s.busy), last = maps:remove(T, S#s.last),
                prior = maps:remove(T, S#s.prior), waited = maps:remove(T, S#s.waited),
                ran = maps:remove(W, S#s.ran)};
        error -> S
    end.

%% ---------------------------------------------------------------- a round

round(S0, Now) ->
    Period = S0#s.period_us,
    Lateness = Now - S0#s.next_round,
    Selected = map_size(S0#s.workers),
    %% An absolute schedule (py-spy's Timer): a round that starts late does
    %% not push the next one back. On a saturated node the VM's timers fire
    %% 2-20 ms late even at max priority (measured: `receive after 1` took
    %% 2 ms p50, 20 ms p90 with 1000 busy processes on 2 schedulers), so the
    %% rounds due meanwhile run at once. Only when far behind (a long stall)
    %% are the missed rounds counted and the schedule restarted from now.
    %% Each round is due at a random point of its own period (its slot, a
    %% uniform offset), so that sampling cannot alias with periodic work on
    %% the node: a 100 Hz burst sampled at a fixed 97 Hz showed three bands
    %% a second. Exactly one round is due per period, so the rounds of any
    %% stretch of time are as many as without the jitter, give or take one
    %% (rounds a random 0.5 to 1.5 periods apart, tried first, made the
    %% count itself random: over 3 s, 1 % more rounds than --hz asked).
    {Missed, Slot} = case Lateness > max(100000, 10 * Period) of
                         true -> {Lateness div Period, Now};
                         false -> {0, S0#s.next_slot}
                     end,
    R = S0#s.round + 1,
    S00 = maybe_reset(S0#s{round = R, missed = S0#s.missed + Missed}),
    Busy = S00#s.busy,
    Idle = maps:fold(fun(W, {_, _, Info}, Acc) ->
                             case is_map_key(W, Busy) of
                                 true -> Acc;
                                 false -> [{W, Info} | Acc]
                             end
                     end, [], S00#s.workers),
    {Part, S01} = budget_part(Idle, move(R, S00)),
    Could = could_run(),
    {Read, S02} = displaced(answered(statuses(Part, S01#s.workers), Could, S01#s.workers), S01),
    {Ask, Cheap, S} = cheap_part(Read, R, S02, [], []),
    NextSlot = Slot + Period,
    Deadline = NextSlot + jitter(Period),
    Pending = maps:from_list([{W, R} || W <- Ask]),
    %% The late samples already pending start the batch; they leave the
    %% state, else a late sample arriving during collect/5 (which appends
    %% the state's pending to the batch) sent them twice, counted as
    %% delivered twice.
    {S1, Samples, Left} = collect(S#s{busy = maps:merge(S#s.busy, Pending), pending = []},
                                  R, Deadline, Cheap ++ S#s.pending, length(Ask)),
    End = now_us(),
    Asked = length(Ask) + length(Cheap),
    Info = {Now, End - Now, max(0, Lateness), Asked, Asked - Left,
            S1#s.late, S1#s.missed, S1#s.dropped, Selected,
            round(S1#s.share * 1000), S1#s.cost_ppm, S1#s.unseen, S1#s.work,
            S1#s.at_once, S1#s.busy_pm},
    S2 = send_batch(S1#s{pending = []}, Info, Samples),
    budget_check(S2#s{next_round = Deadline, next_slot = NextSlot,
                      rounds = S2#s.rounds + 1}, End).

%% A uniform offset within a period (rand's state lives in this process).
jitter(Period) -> rand:uniform(Period) - 1.

%% The status pass takes a scheduler, and whatever ran there until then
%% reads `runnable`: left where it was, the coordinator displaced the
%% processes of its own scheduler's run queue in every round and they were
%% never seen running (three spinners on two schedulers: one had no on-CPU
%% sample at all). So the coordinator moves to a scheduler with nothing to
%% do (statistics(active_tasks), about 1 us) whenever the one it is on has
%% other work: the process it displaced there runs again while it reads.
%% On a node with no idle scheduler someone is displaced whatever we do: it
%% moves to a random scheduler every ?MOVE_ROUNDS rounds, so that every
%% process loses the same share of its running samples and the picture
%% keeps its shape (doc/truth.md). process_flag(scheduler, N) binds a
%% process to a scheduler's run queue and moves it there (undocumented, in
%% ERTS since R13; where a release refuses it, the rounds run where they
%% are). The workers stay where they are: they read after the status pass,
%% and moving each of them cost more than it changed.
move(R, S) ->
    case erlang:system_info(schedulers_online) of
        1 -> S;
        N ->
            Active = lists:sublist(erlang:statistics(active_tasks), N),
            Here = erlang:system_info(scheduler_id),
            Others = case Here =< N of
                         true -> lists:nth(Here, Active) - 1;   % less ourselves
                         false -> 1
                     end,
            Idle = [K || {K, 0} <- lists:zip(lists:seq(1, length(Active)), Active)],
            if
                Others =< 0, S#s.sched > 0 -> S;                 % we displaced no one
                Idle =/= [] -> bind(lists:nth(rand:uniform(length(Idle)), Idle), S);
                S#s.sched > 0, R rem ?MOVE_ROUNDS =/= 0 -> S;
                true -> bind(rand:uniform(N), S)
            end
    end.

%% Each target's status, read directly by the coordinator, all of them
%% first, at the round's instant: [{W, Info, Status}], Status the atom read
%% or `undefined` for a process gone. The status needs no lock of the
%% target's, so it is read without a signal while the target neither runs
%% nor has a signal to handle. Otherwise the read is a signal the target
%% answers itself: one that runs, at its next signal check (a spinner:
%% 61 us median), and one with a signal it has not handled yet (a socket's
%% reply), `running`, while it waits for that socket
%% (bench/fp_status_signal.erl, doc/truth.md): answered/3 sorts those out.
statuses(Part, Workers) ->
    [{W, Info, status_of(W, Workers)} || {W, Info} <- Part].

%% The status of worker W's target, or `undefined` for a process gone.
status_of(W, Workers) ->
    case erlang:process_info(element(1, maps:get(W, Workers)), status) of
        {status, St} -> St;
        undefined -> undefined
    end.

%% How many processes can be running now on a scheduler other than this
%% one: on each run queue, the processes and ports active there (running or
%% ready to) less those waiting in it, dirty run queues included (a target
%% in a dirty NIF is running, and reads so). Two counters a queue, read
%% without a lock or signal. An upper bound: a port, or a process we do not
%% sample, may be the one running.
could_run() ->
    Here = erlang:system_info(scheduler_id),
    could_run(erlang:statistics(active_tasks_all),
              erlang:statistics(run_queue_lengths_all), 1, Here, 0).

could_run([A | As], [Q | Qs], I, Here, N) when I =/= Here ->
    could_run(As, Qs, I + 1, Here, N + max(0, A - Q));
could_run([_ | As], [_ | Qs], I, Here, N) -> could_run(As, Qs, I + 1, Here, N);
could_run(_, _, _, _, N) -> N.

%% The reads of a pass that answered `running` (Read), at most as many kept
%% as the run queues say can run at once (Could, or could_run/0 after the
%% pass): past that bound each is read again, those still running kept
%% first, then the others, each in a random order; the rest are written
%% `runnable`. A status read of a target with a signal it has not handled
%% (a port's reply) is a signal it answers itself, `running`, and no answer
%% tells the two apart: doc/truth.md, "A status read that is a signal".
answered(Read, Could, Workers) ->
    case [W || {W, _, running} <- Read] of
        Running when length(Running) > Could ->
            Bound = max(Could, could_run()),
            Keep = case length(Running) > Bound of
                       false -> Running;
                       true when Bound =:= 0 -> [];
                       true -> still_running(Running, Bound, Workers)
                   end,
            [case E of
                 {W, Info, running} -> case lists:member(W, Keep) of
                                           true -> E;
                                           false -> {W, Info, runnable}
                                       end;
                 _ -> E
             end || E <- Read];
        _ -> Read
    end.

%% At most Bound of Ws: those whose target reads running again first,
%% then the others, each in a random order.
still_running(Ws, Bound, Workers) ->
    {Still, Not} = lists:partition(fun(W) -> status_of(W, Workers) =:= running end, Ws),
    lists:sublist(shuffle(Still) ++ shuffle(Not), Bound).

shuffle(L) -> [X || {_, X} <- lists:sort([{rand:uniform(), X} || X <- L])].

%% Where no scheduler was idle (a saturated node, +S 1), the status pass took
%% the scheduler of a process that reads `runnable` in its place: when the
%% coordinator's run queue is not empty, one drawable target read runnable
%% is written `running` with its stack as it is, with the chance that
%% runnable targets are among all runnable processes, drawn by the share
%% each runs (the running reads of passes made on other schedulers, plus
%% one, halved every ?RAN_HALF rounds). Why each rule, and what it costs the
%% picture: doc/truth.md, "What perf agrees with, and where it cannot".
displaced(Read, S0) ->
    Here = erlang:system_info(scheduler_id),
    S = ran(Read, Here, S0),
    %% the targets that can be the one displaced first: most rounds of a node
    %% that is not saturated have none, and read no run queue at all
    case [W || {W, _, runnable} <- Read, drawable(W, S)] of
        [] -> {Read, S};
        Runnable ->
            Queues = lists:sublist(erlang:statistics(run_queue_lengths),
                                   erlang:system_info(schedulers)),
            N = length(Runnable),
            case Here =< length(Queues) andalso lists:nth(Here, Queues) > 0
                andalso rand:uniform() * max(N, lists:sum(Queues)) < N of
                false -> {Read, S};
                true ->
                    Out = weighted(Runnable, Here, S#s.ran),
                    {[case E of
                          {Out, Info, runnable} -> {Out, Info, running};
                          _ -> E
                      end || E <- Read], S}
            end
    end.

%% Counts the targets this pass read running, by the scheduler the pass ran
%% on (worker => #{Scheduler => Count}), halving every count now and then.
ran(Read, Here, S) ->
    Ran0 = case S#s.round rem ?RAN_HALF of
               %% a count that halves to 0 weighs what a missing one does;
               %% drop_worker/2 takes a worker's counts with it
               0 -> maps:map(fun(_, ByS) -> maps:map(fun(_, C) -> C div 2 end, ByS) end, S#s.ran);
               _ -> S#s.ran
           end,
    Ran = lists:foldl(fun({W, _, running}, M) ->
                              maps:update_with(W, fun(ByS) -> maps:update_with(Here, fun(C) -> C + 1 end, 1, ByS) end,
                                               #{Here => 1}, M);
                         (_, M) -> M
                      end, Ran0, Read),
    S#s{ran = Ran}.

%% One of Ws, each with the weight of its count in Ran on the schedulers
%% other than Here, plus one.
weighted(Ws, Here, Ran) ->
    Weights = [{W, maps:fold(fun(K, C, A) when K =/= Here -> A + C;
                                (_, _, A) -> A
                             end, 1, maps:get(W, Ran, #{}))} || W <- Ws],
    pick(rand:uniform(lists:sum([C || {_, C} <- Weights])), Weights).

pick(K, [{W, C} | _]) when K =< C -> W;
pick(K, [{_, C} | Rest]) -> pick(K - C, Rest).

%% The one displaced was running, so it is runnable now with its stack where
%% its time slice was cut. A target just woken has not run yet and its stack
%% is the receive it waited in: taken for the displaced one, a service's
%% clients woken by their timers were written running at timer:sleep/1. So
%% only a target whose last sample found it on a CPU or in a run queue, at
%% a stack that is not one a process was seen waiting at (nor run to its
%% receive, [ran_to_receive]), can be the one put back. Running counts: a
%% rule that asked for runnable alone left out, in the first round of the
%% coordinator on a scheduler, the process it displaced there, which the
%% rounds on the other scheduler had read running, and every other round
%% after it, once it had been put back (three spinners on two schedulers:
%% the one alone on its scheduler, half the CPU by perf, drawn at 0.40).
drawable(W, S) ->
    {T, _, _} = maps:get(W, S#s.workers),
    case S#s.prior of
        #{T := {St, StackId}} when St =< 1; St =:= 3 ->
            StackId =/= 0 andalso not is_map_key(StackId, S#s.waits);
        _ -> false
    end.

bind(K, S) ->
    case attempt(fun() -> process_flag(scheduler, K) end) of
        failed -> S;
        _ -> S#s{sched = K}
    end.

%% A process that has not run since its last sample needs no worker: its
%% stack and heap are as they were, and reductions, status, queue length
%% and seq_trace token are read without a signal (0.2-0.5 us) unless it is
%% running right now. Through a worker (a message each way and a wake-up
%% of a scheduler, which then spins looking for work) such a sample cost
%% 26-41 us of node CPU on an idle 2-core node, read here 5-14 us, most of
%% it the round's own wake-up (doc/benchmarks.md, "Measurements behind
%% the code"). So the coordinator reads the cheap items itself, one target
%% after the other, of every target its last sample did not find running:
%% waiting ones, and runnable ones, which on a saturated node wait in the
%% run queue for many rounds (reading them is direct as long as they are
%% not running; 20,000 reads of random processes among 1000 busy ones on 2
%% schedulers: p50 0.5 us, p99 4 us, a wait rather than CPU when one is
%% running). A target found changed goes to its worker, for the full
%% sample (a signal: those are asked in parallel, as before), and so does
%% one last found running.
cheap_part(Part, R, S, Ask, Cheap) ->
    cheap_part(Part, R, S, Ask, Cheap, S#s.last, 0).

%% Last (the state's last map) and N (samples taken here) are carried
%% along and put in the state once a round: the state is a record of some
%% 50 fields, copied at each update.
cheap_part([], _R, S, Ask, Cheap, Last, N) ->
    {Ask, Cheap, S#s{last = Last, samples = S#s.samples + N,
                     win_cost = S#s.win_cost + N * ?COORD_CHEAP_US}};
cheap_part([{W, Info, St} | Rest], R, S, Ask, Cheap, Last, N) ->
    case cheap(W, St, Info, S, Last) of
        {taken, Sample, S1, Last1} -> cheap_part(Rest, R, S1, Ask, [Sample | Cheap], Last1, N + 1);
        How ->
            W ! {sample, R, Info, How, now_us()},
            cheap_part(Rest, R, S, [W | Ask], Cheap, Last, N)
    end.

%% A sample taken here ({taken, ...}), or what to ask the worker:
%% {check, Code, Reds} (if the target had not run since its last sample at
%% the instant, when it had Reds, that sample's stack is this one's) or
%% {full, Code, Reds} (read it all: it ran), {full, Code} for a target
%% running at the instant (sample/4). Code is the target's status as read
%% here, alone and directly, at the round's instant: the status the sample
%% is written with. A target found running or garbage collecting is never a
%% cheap sample (its reductions are added when it is scheduled out). Why the
%% status is read alone and first: doc/truth.md, "What a sample is".
cheap(_W, St, _Info, _S, _Last) when St =:= running; St =:= garbage_collecting ->
    {full, status(St)};
cheap(_W, undefined, _Info, _S, _Last) -> {full, 2};   % gone: the worker says so
cheap(W, St, Info, S, Last) ->
    {T, Idx, _} = maps:get(W, S#s.workers),
    cheap(T, Idx, status(St), Info, S, Last).

cheap(T, Idx, Code, Info, S, Last) ->
    case erlang:process_info(T, ?CHEAP_ITEMS) of
        [{reductions, Reds}, {message_queue_len, Q}, {sequential_trace_token, Tok}] ->
            case Last of
                #{T := {Lo, Hi, StackId, M, Code0} = Prev}
                  when Reds >= Lo, Reds =< Hi, not Info, Code =/= 0, Code =/= 3 ->
                    {LabelId, S1} = case Tok of
                                        [] -> {0, S};
                                        _ -> label_id(label(S#s.tab, Tok), S)
                                    end,
                    %% an idle process: nothing changed, nothing copied
                    {M1, Now} = case M of
                                    {Reds, Q, _, _, _, _, _, _, _, _, _, _, _, _, _, _} ->
                                        {M, Prev};
                                    _ ->
                                        M2 = setelement(2, setelement(1, M, Reds), Q),
                                        {M2, {Reds, Reds, StackId, M2, Code}}
                                    end,
                    Last1 = if
                                Now =:= Prev, Lo =:= Hi, Code =:= Code0 -> Last;
                                true -> Last#{T := setelement(5, setelement(1, setelement(2, Now, Reds), Reds), Code)}
                            end,
                    {taken, {now_us(), Idx, Code, StackId, LabelId, M1}, S1, Last1};
                #{T := {Lo, Hi, _, _, _}} when Reds >= Lo, Reds =< Hi, Code =/= 0, Code =/= 3 ->
                    {check, Code, Reds};       % its names are wanted: the worker reads them
                #{T := _} -> {full, Code, Reds}; % it ran since its last sample
                _ -> {check, Code, Reds}
            end;
        _ -> {full, 2}                         % gone: the worker says so
    end.

%% ---------------------------------------------------------------- cost budget

%% The cost budget (kprof's overload protection, made real): every second
%% the agent counts what its samples cost the node (the model of
%% ?FULL_SAMPLE_US) and how busy the node's schedulers were. While the node
%% is busy (our cost is then taken from the node's own work) and the cost
%% is over budget, it samples a smaller part of the selected processes in
%% each round; when the node has room again, or the cost is well under
%% budget, it takes the part back up step by step. The part goes to the
%% C-node with each batch, which says it in the status line and summary.
%% Without a budget (--max-cost 0) the window still counts the cost, for
%% the status line.
budget_check(#s{win_start = T0} = S, Now) when Now - T0 < ?BUDGET_WINDOW_US -> S;
budget_check(#s{budget_us = 0} = S, Now) ->
    S#s{cost_ppm = round(cost_per_s(S, Now) / S#s.scheds), win_start = Now, win_cost = 0,
        at_once = at_once()};
budget_check(S, Now) ->
    CostPerSec = cost_per_s(S, Now),
    Wall = sched_wall(S#s.budget_us),
    Delta = wall_delta(S#s.sched_wall, Wall),
    Busy = utilization(Delta) >= ?BUSY,
    Share = S#s.share,
    New = if
              Busy andalso CostPerSec > S#s.budget_us ->
                  max(?MIN_SHARE, Share * S#s.budget_us / CostPerSec);
              not Busy -> min(1.0, Share * 2);
              CostPerSec < 0.5 * S#s.budget_us -> min(1.0, Share * 1.25);
              true -> Share
          end,
    {Active, Total} = case Delta of
                          {DA, DT} -> {S#s.active + DA, S#s.wall + DT};
                          undefined -> {S#s.active, S#s.wall}
                      end,
    S#s{share = New, win_start = Now, win_cost = 0, sched_wall = Wall, node_busy = Busy,
        cost_ppm = round(CostPerSec / S#s.scheds),
        active = Active, wall = Total, busy_pm = busy_permille(Active, Total),
        at_once = at_once()}.

%% How many schedulers were busy on average since the start, in
%% thousandths: their active time over one scheduler's wall time. Where
%% one scheduler runs at a time, every read takes the one the node runs
%% on, so a process is never read in the middle of a run: the C side says
%% so when the on-CPU samples hold much less than this (doc/truth.md).
busy_permille(_Active, 0) -> -1;
busy_permille(Active, Total) ->
    round(Active * 1000 * erlang:system_info(schedulers_online) / Total).

%% How many schedulers can run at the same time: those online, and no more
%% than the processors the node may use (its CPU affinity, a cgroup's CPU
%% quota). Two schedulers on one processor are one at a time, as one
%% scheduler is: the service shape of make truth pinned to one CPU with
%% +S 2 had 7 on-CPU samples in 6 s, as on +S 1.
at_once() ->
    Online = erlang:system_info(schedulers_online),
    Cpus = try erlang:system_info(logical_processors_available) catch _:_ -> unknown end,
    Quota = try erlang:system_info(cpu_quota) catch _:_ -> unknown end,
    lists:min([Online] ++ [Cpus || is_integer(Cpus), Cpus > 0] ++
              [max(1, ceil(Quota)) || is_number(Quota), Quota > 0]).

%% What sampling cost per second over the window, in microseconds: the
%% samples, and the selection scan spread over its window.
cost_per_s(S, Now) ->
    Secs = (Now - S#s.win_start) / 1000000,
    S#s.win_cost / Secs + S#s.scan_per_s.

%% The workers to ask this round: all of them at a share of 1, else the
%% share's part of them, taken in turn so that every selected process is
%% sampled as often as the others.
budget_part(Idle, #s{share = Share} = S) when Share >= 1.0 -> {Idle, S};
budget_part([], S) -> {[], S};
budget_part(Idle, #s{share = Share, credit = Credit, turn = Turn} = S) ->
    N = length(Idle),
    Owed = Credit + Share * N,
    K = min(N, trunc(Owed)),
    Sorted = lists:sort(Idle),
    Start = Turn rem N,
    {Tail, Head} = lists:split(Start, Sorted),
    Part = lists:sublist(Head ++ Tail, K),
    {Part, S#s{credit = Owed - K, turn = Start + K}}.

%% How busy the node is: the share of wall time its normal schedulers spent
%% working (not waiting for work). It needs the scheduler_wall_time flag,
%% which OTP counts per process (kernel_refc, a server of the kernel
%% application, monitors each process that turned it on): the flag we turn
%% on is turned off when this process ends, however it ends, and an
%% application's own setting is left as it was. Turned on once, at the
%% start: each call is a call to that server, which is gone while the node
%% shuts down.
sched_wall_on(0) -> ok;
sched_wall_on(_) ->
    try erlang:system_flag(scheduler_wall_time, true) of
        _ -> ok
    catch _:_ -> ok
    end.

sched_wall(0) -> undefined;
sched_wall(_) ->
    N = erlang:system_info(schedulers),
    case erlang:statistics(scheduler_wall_time) of
        L when is_list(L) -> [{Id, A, T} || {Id, A, T} <- L, Id =< N];
        _ -> undefined
    end.

utilization({A, T}) when T > 0 -> A / T;
utilization({_, _}) -> 0.0;
utilization(undefined) -> 1.0.

%% The online schedulers' active and wall time between two readings, each
%% summed over them (an offline one counts no time of either: it would
%% dilute the share of those that run); undefined without the readings.
wall_delta(Before, After) when is_list(Before), is_list(After) ->
    N = erlang:system_info(schedulers_online),
    lists:foldl(fun({Id, A1, T1}, {SA, ST}) when Id =< N ->
                        case lists:keyfind(Id, 1, Before) of
                            {Id, A0, T0} -> {SA + A1 - A0, ST + T1 - T0};
                            false -> {SA, ST}
                        end;
                   (_, Acc) -> Acc
                end, {0, 0}, After);
wall_delta(_, _) -> undefined.

collect(S, _R, _Deadline, Acc, 0) -> {S, Acc, 0};
collect(S, R, Deadline, Acc, Left) ->
    Wait = max(0, (Deadline - now_us() + 999) div 1000),
    receive
        {sampled, W, R, T, St, Stack, Label, M, Info, Cost} ->
            {S1, Sample} = take_sample(W, R, T, St, Stack, Label, M, Info, Cost, S),
            S2 = S1#s{busy = maps:remove(W, S1#s.busy)},
            collect(S2, R, Deadline, add(Sample, Acc), Left - 1);
        {gone, W, R} ->
            collect(drop_worker(W, S), R, Deadline, Acc, Left - 1);
        stop ->
            self() ! stop, {S, Acc, Left};
        {nodedown, _} = Down ->
            self() ! Down, {S, Acc, Left};
        Other ->
            S1 = other(Other, S),
            collect(S1#s{pending = []}, R, Deadline, S1#s.pending ++ Acc, Left)
    after Wait ->
            {S, Acc, Left}
    end.

add(none, Acc) -> Acc;
add(Sample, Acc) -> [Sample | Acc].

take_sample(W, R, T, St, StackRef, LabelRef, Metrics, Info, Kind, S0) ->
    S = S0#s{win_cost = S0#s.win_cost + cost_us(Kind)},
    case maps:find(W, S#s.workers) of
        {ok, {Target, Idx, _}} when R > S#s.reset_round ->
            S1 = proc_def(Info, Target, Idx, W, S),
            %% stack id 0: the stack was not read in time (read_in_time/4)
            {StackId, Drawn, S2} = case StackRef of
                                       {late, Ref} -> {Id, S1a} = stack_id(Ref, S1), {Id, 0, S1a};
                                       _ -> {Id, S1a} = stack_id(StackRef, S1), {Id, Id, S1a}
                                   end,
            {LabelId, S3} = label_id(LabelRef, S2),
            {Drawn1, Waits} = at_receive(St, StackId, Drawn, S3#s.waits, Kind),
            {Drawn2, Waited} = waited(Target, St, Drawn1, Kind, S3#s.waited),
            {S3#s{samples = S3#s.samples + 1, waits = Waits, waited = Waited,
                  last = remember(Target, St, StackId, Metrics, Kind, S3#s.last),
                  prior = maps:put(Target, {St, Drawn2}, S3#s.prior)},
             {T, Idx, St, Drawn2, LabelId, Metrics}};
        _ -> {S, none}
    end.

%% A process read running whose stack is one a process was seen waiting at
%% served our read at that receive, its run over: the stack is not where it
%% ran. read_in_time/4 cannot tell when a message was already waiting (a
%% busy server drawn 6.6 % at its receive loop, where perf saw 0.1 %), nor
%% when the process was woken again before the worker read its status (a
%% client that sleeps 1 ms). Any target's waits count, not only this one's
%% last: a client waits at two receives in turn (its call's reply, then
%% timer:sleep/1), and one whose last wait was the other, or whose first
%% sample this is, was drawn at timer:sleep/1 (truth_perf.t test 10 in CI).
%% A stack is a call chain with a line in every frame, so another process
%% at the same one is at the same receive. A wait is remembered from a full
%% read of a target that was waiting before it and still is after it
%% (moved/4), and from a cheap sample: a stack read before at the same
%% reductions, so the process has run no code since and waits where that
%% read left it (a burner that sleeps 20 ms, whose last read was served at
%% its receive, had only cheap waiting samples, and one of its runs to the
%% receive was drawn at timer:sleep/1).
at_receive(St, StackId, Drawn, Waits, _Kind) when St =:= 0; St =:= 3 ->
    case Waits of
        #{StackId := _} -> {0, Waits};
        _ -> {Drawn, Waits}
    end;
at_receive(2, StackId, Drawn, Waits, Kind) when StackId =/= 0, Kind =/= moved ->
    case map_size(Waits) < ?MAX_WAIT_STACKS of
        true -> {Drawn, Waits#{StackId => true}};
        false -> {Drawn, Waits}
    end;
at_receive(_St, _StackId, Drawn, Waits, _Kind) -> {Drawn, Waits}.

%% A target read waiting at the round's instant and woken before its read
%% (moved/4) answers with where it went, not where it waited: the service's
%% server, woken by each of its requests, had 5-28 % of its waiting samples
%% in its computing function, where the wall-clock view must show it at its
%% receive. Such a sample is drawn at the stack it was last seen waiting at
%% (a process that waits at one receive, as servers do, is drawn exactly;
%% one that waits at several, at the last of them), else as it was read.
waited(T, 2, Drawn, moved, Waited) -> {maps:get(T, Waited, Drawn), Waited};
waited(T, 2, Drawn, _Kind, Waited) when Drawn =/= 0 -> {Drawn, Waited#{T => Drawn}};
waited(_T, _St, Drawn, _Kind, Waited) -> {Drawn, Waited}.

%% A target not found running is read by the coordinator next round
%% (cheap/5). Reading a waiting process's stack costs it one
%% reduction (OTP 25: current_function, current_stacktrace, memory and
%% total_heap_size charge one together, and the count read is the one
%% before), so after a full sample one more reduction still means "has not
%% run" (a process that ran did at least 5: waking from a receive timeout
%% costs 5, a message 7-9, on OTP 25; tests/e2e/cheap_samples.t); after a
%% cheap one, nothing may have changed. Where a release charges more, the
%% next sample is simply a full one.
remember(T, 0, _StackId, _M, _Kind, Last) -> maps:remove(T, Last);
remember(T, Code, StackId, M, Kind, Last) ->
    Reds = element(1, M),
    Hi = case Kind of
             cheap -> Reds;
             _Full -> Reds + ?READ_CHARGE
         end,
    Last#{T => {Reds, Hi, StackId, M, Code}}.

cost_us(cheap) -> ?CHEAP_SAMPLE_US;
cost_us(_Full) -> ?FULL_SAMPLE_US.

proc_def(none, _, _, _, S) -> S;
proc_def({Initial, Name, Dict}, Target, Idx, W, S) ->
    Ws = maps:update_with(W, fun({T, I, _}) -> {T, I, false} end, S#s.workers),
    Dicts = case Dict of
                {cached, _, _} -> maps:put(Target, Dict, S#s.dicts);
                _ -> S#s.dicts
            end,
    S#s{workers = Ws, dicts = Dicts, defs = [{proc, Idx, Target, Initial, Name} | S#s.defs]}.

%% ---------------------------------------------------------------- receives

%% A module whose receives a worker asks for, once each, at most
%% ?MAX_RX_MODULES of them: the reader reads it, its answer
%% ({receives, M, Lines}) goes into the table (other/2).
learn(M, #s{rx = Rx, reader = Reader} = S) when is_pid(Reader), is_atom(M) ->
    case ets:member(Rx, M) orelse S#s.rx_modules >= ?MAX_RX_MODULES of
        true -> S;
        false ->
            ets:insert(Rx, {M, true}),
            Reader ! {learn, M},
            S#s{rx_modules = S#s.rx_modules + 1}
    end;
learn(_M, S) -> S.

%% The reader, at low priority: the lines a module's receives are read at,
%% from the .beam file it was loaded from (code:which/1, a lookup for a
%% loaded module; the file read in this process, not by the code server).
%% Measured on RabbitMQ's 1,052 modules (OTP 25, this project's VM):
%% gen_server2 (47 KB) 0.26 ms, rabbit_channel (134 KB) 3 ms, all of them
%% 0.42 s; the largest, a generated protobuf module of 1.6 MB, 114 ms, so
%% a file over ?MAX_RX_FILE is not read. A module loaded from no file (a
%% binary, cover, a release's archive), or from a larger one, has no lines,
%% and its reads stay as they are.
reader(Agent) ->
    receive
        {learn, M} ->
            Lines = try code:which(M) of
                        Path when is_list(Path) ->
                            case file_size(Path) =< ?MAX_RX_FILE andalso file:read_file(Path) of
                                {ok, Bin} -> receive_lines(Bin);
                                _ -> error
                            end;
                        _ -> error
                    catch _:_ -> error
                    end,
            Agent ! {receives, M, Lines},
            reader(Agent)
    end.

file_size(Path) ->
    case file:read_file_info(Path) of
        {ok, Info} -> element(2, Info);      % #file_info.size
        _ -> infinity
    end.

-include("fp_receives.hrl").

%% ---------------------------------------------------------------- interning

stack_id(Id, S) when is_integer(Id) -> {Id, S};
stack_id({new, {Hash, Stack}}, S) ->
    intern({s, Hash}, S, fun(Id, S1) ->
                                  {FrameIds, S2} = lists:mapfoldl(fun frame_id/2, S1, Stack),
                                  {{stack, Id, FrameIds}, S2}
                          end).

frame_id({M, F, A, Loc} = Frame, S) ->
    intern({f, Frame}, S, fun(Id, S1) ->
                                  Arity = if is_integer(A) -> A; is_list(A) -> length(A); true -> -1 end,
                                  {{frame, Id, text(M), text(F), Arity,
                                    text(proplists:get_value(file, Loc, "")),
                                    line(proplists:get_value(line, Loc, 0))}, S1}
                          end).

label_id(Id, S) when is_integer(Id) -> {Id, S};
label_id({new, Label}, S) ->
    intern({l, Label}, S, fun(Id, S1) -> {{label, Id, text(Label)}, S1} end).

%% The id of Key, or a new one whose definition Define(Id, S) makes (a stack
%% defines its frames first, so their definitions go out before it).
intern(Key, S, Define) ->
    Tab = S#s.tab,
    case ets:lookup(Tab, Key) of
        [{_, Id}] -> {Id, S};
        [] ->
            {Def, S1} = Define(S#s.next_id, S#s{next_id = S#s.next_id + 1}),
            Id = element(2, Def),
            ets:insert(Tab, {Key, Id}),
            {Id, S1#s{defs = [Def | S1#s.defs]}}
    end.

%% The tables are bounded: past a limit both sides start over. The intern
%% table holds whole stacks as keys (about 2 KB each for 25 frames), so it
%% is bounded by its memory on the node too: on a workload whose stacks
%% keep varying it grew without end (the C side's RSS with it, 4 MiB in
%% 10 minutes of the bench's saturated workload).
maybe_reset(#s{next_id = N, next_proc = P} = S) ->
    case N > ?MAX_IDS orelse P > ?MAX_PROCS orelse
         ets:info(S#s.tab, memory) > ?MAX_TAB_WORDS of
        true -> reset(S);
        false -> S
    end.

reset(S) ->
    ets:delete_all_objects(S#s.tab),
    Procs = maps:from_list([{T, I} || {_, {T, I, _}} <- maps:to_list(S#s.workers)]),
    Ws = maps:map(fun(_, {T, I, _}) -> {T, I, true} end, S#s.workers),
    %% late samples still pending name ids the C side is about to forget
    Dicts = maps:with(maps:keys(Procs), S#s.dicts),
    S#s{next_id = 1, defs = [reset], reset_round = S#s.round - 1, pending = [], dicts = Dicts,
        last = #{}, waits = #{}, waited = #{}, prior = #{},
        procs = Procs, workers = Ws, next_proc = lists:max([0 | maps:values(Procs)]) + 1}.

%% ---------------------------------------------------------------- sending

%% With nothing to say, a batch still goes out once a second: the C side
%% takes a long silence for a frozen or unreachable node.
send_batch(#s{defs = []} = S, Info, []) ->
    case element(1, Info) - S#s.last_send >= 1000000 of
        true -> send_batch1(S, Info, []);
        false -> S
    end;
send_batch(S, Info, Samples) -> send_batch1(S, Info, Samples).

send_batch1(S, Info, Samples) ->
    Seq = S#s.seq + 1,
    Batch = {fp_batch, Seq, Info, lists:reverse(S#s.defs), Samples},
    case erlang:send(S#s.sink, Batch, [nosuspend]) of
        ok -> S#s{seq = Seq, defs = [], last_send = element(1, Info)};
        _ ->
            %% Samples are dropped and counted; definitions are kept for the
            %% next batch so later samples still resolve.
            S#s{seq = Seq, dropped = S#s.dropped + length(Samples)}
    end.

%% ---------------------------------------------------------------- stopping

%% Ends the agent: the node as it was, then a word to the C-node. The
%% guardian, if alive, deletes the module once this process has exited.
finish(S, Why) ->
    Ws = [S#s.scanner, S#s.reader | maps:keys(S#s.workers)],
    [begin unlink(W), exit(W, kill) end || W <- Ws, is_pid(W)],
    erlang:system_flag(backtrace_depth, S#s.old_depth),
    ets:delete(S#s.tab),
    ets:delete(S#s.rx),
    end_lock(S#s.lock),
    case Why of
        stopped ->
            %% a plain send: the C-node is reading, and the last batch matters
            (S#s.defs =/= [] orelse S#s.pending =/= []) andalso
                (S#s.sink ! {fp_batch, S#s.seq + 1,
                             {now_us(), 0, 0, 0, 0, S#s.late, S#s.missed, S#s.dropped, 0,
                              round(S#s.share * 1000)},
                             lists:reverse(S#s.defs), S#s.pending}),
            S#s.sink ! {fp_stopped, ?PROTO, {S#s.rounds, S#s.samples, S#s.dropped,
                                             S#s.late, S#s.missed}};
        nodedown -> ok;
        {down, Who, Reason} ->
            tell_down(S#s.sink, {fp_error, ?PROTO, agent_down, down_text(Who, Reason)})
    end,
    case S#s.guardian of
        undefined -> unload_self();
        _ -> ok
    end,
    exit(normal).

%% Leave no trace: the module goes too. Deleting is quick; purging walks
%% every process of the node (measured: 125 s with 100,000 processes) and
%% code:purge would hold the code server, and all code loading on the node,
%% for that long. So unload_self/0 (tracer/fp_purge.hrl, through
%% fp_life.hrl, shared with the tracers) starts the purge in a process of
%% its own that runs no code of ours, asking every process at once. It
%% kills whoever still runs our old code, which by then can only be this
%% finished process.

%% ---------------------------------------------------------------- workers

%% Dict: key (read one key of the target's dictionary), unread (read the
%% whole dictionary once) or {cached, InitialCall, Label} (read already).
worker(Agent, P, Tab, Rx, Dict) -> worker(Agent, P, Tab, Rx, Dict, none).

worker(Agent, P, Tab, Rx, Dict, Last) ->
    receive
        {sample, R, Info, How, T0} ->
            case sample(How, P, Last, T0) of
                gone ->
                    Agent ! {gone, self(), R};
                {T, St, StackKey, Frames, Tok, M, Cost, Top} ->
                    case info(Info, P, Dict) of
                        gone ->
                            %% it ended between the two reads: a sample
                            %% without its process's definition cannot be
                            %% drawn (the C side would meet an undefined id)
                            Agent ! {gone, self(), R};
                        {Names, Dict1} ->
                            Ref = stack_ref(Tab, StackKey),
                            Read = case served_at_receive(St, Top, Frames, Rx, Agent) of
                                       true -> {late, Ref};
                                       false -> read_in_time(P, St, Cost, Ref)
                                   end,
                            Agent ! {sampled, self(), R, T, St, Read, label(Tab, Tok), M, Names, Cost},
                            worker(Agent, P, Tab, Rx, Dict1, {element(1, M), StackKey, Frames, M})
                    end
            end;
        stop -> ok
    end.

%% A process whose reductions have not moved since its previous sample has
%% not run: its stack and heap are as they were. Reductions, queue length
%% and seq_trace token are read without disturbing the process (28 us for
%% 100 processes on a saturated node); anything more is a signal the
%% process must handle when it next runs (3.5 ms for the same 100, and most
%% of what sampling costs a node). So the rest is asked only after it ran.
%% How: {check, Code, Reds0} or {full, Code, Reds0} for a target not
%% running at the round's instant, Reds0 its reductions then; {full, Code}
%% for one running (cheap/5). Code, the status the coordinator read at the
%% round's instant, is the sample's status.
%% T0: the round's instant, when the coordinator read the status.
%% "Not run since its last sample" is asked of the reductions at the
%% instant, not of those the worker reads later: a target woken between the
%% two (a server that gets its next request) has left the stack it had at
%% the instant, which is still the one of its last sample.
sample({check, Code, RedsThen}, P, {Reds0, StackKey, Frames, M} = Last, T0)
  when Code =/= 0, Code =/= 3 ->
    case RedsThen >= Reds0 andalso RedsThen =< Reds0 + ?READ_CHARGE of
        true ->
            case erlang:process_info(P, [message_queue_len, sequential_trace_token]) of
                [{message_queue_len, Q}, {sequential_trace_token, Tok}] ->
                    {T0, Code, StackKey, Frames, Tok, setelement(1, setelement(2, M, Q), RedsThen), cheap,
                     none};
                undefined -> gone
            end;
        false -> full_sample(P, Code, Last, T0, RedsThen)
    end;
sample({_, Code, RedsThen}, P, Last, T0) -> full_sample(P, Code, Last, T0, RedsThen);
sample({_, Code}, P, Last, T0) -> full_sample(P, Code, Last, T0, running).

%% The sample's time is the round's instant, when its status was read, not
%% when the worker got to the read or the process got round to serving it:
%% a worker on a bursting process's scheduler waits for the burst's time
%% slice to end, and a burst read in its first 2 ms was stamped in its
%% next 2 (2.7 % of the samples against 46.4 %).
%% RedsThen: the target's reductions at that instant (running: it was on a
%% CPU). A target that has run since then, read waiting or runnable at the
%% instant, has a stack that is not the one it had: such a sample is of
%% kind `moved` (moved/4), and its stack is never taken for a wait
%% (at_receive/5): the service's server, woken by its next request, was
%% read waiting in fp_truth_work:fib/1 in 98 of its 356 waiting samples,
%% and with every wait remembered those stacks took its fib samples for
%% runs to a receive (its on-CPU samples in fib fell from 228 to 89).
full_sample(P, Code, Last, T0, RedsThen) ->
    case erlang:process_info(P, ?ITEMS) of
        undefined -> gone;
        [{current_function, CF}, {current_stacktrace, ST},
         {reductions, Reds}, {message_queue_len, Q}, {memory, Mem},
         {total_heap_size, THS}, {garbage_collection, GC},
         {garbage_collection_info, GCI}, {sequential_trace_token, Tok}] ->
            M = {Reds, Q, Mem, THS,
                 gc(heap_block_size, GCI), gc(old_heap_block_size, GCI),
                 gc(heap_size, GCI), gc(old_heap_size, GCI),
                 gc(stack_size, GCI), gc(mbuf_size, GCI),
                 gc(recent_size, GCI), gc(bin_vheap_size, GCI),
                 gc(bin_vheap_block_size, GCI), gc(bin_old_vheap_size, GCI),
                 gc(bin_old_vheap_block_size, GCI), gc(minor_gcs, GC)},
            Stack = stack(CF, ST),
            Frames = frames(Stack),
            Top = case ST of
                      [Raw | _] -> hd(frames([Raw]));
                      [] -> none
                  end,
            Key = case Last of
                      {_, {Hash, _}, Frames, _} -> {Hash, Stack}; % as last time: no hashing
                      _ -> {stack_hash(Frames), Stack}
                  end,
            {T0, Code, Key, Frames, Tok, M, moved(P, Code, Reds, RedsThen), Top}
    end.

%% Whether a target read waiting or runnable at the round's instant has run
%% since (moved) or not (full). Its reductions cannot always tell: a target
%% woken after the instant serves the read at the end of its first time
%% slice, and the count it gives leaves that slice out (the slice's count
%% is added when it is scheduled out). So a target read waiting must still
%% be waiting, its count where the read left it, once the read is over:
%% only then is the stack the one it waits at (both reads are direct, no
%% signal: the status always, the count while it waits).
moved(_P, _Code, Reds, RedsThen) when is_integer(RedsThen), Reds > RedsThen + ?READ_CHARGE ->
    moved;
moved(P, 2, Reds, _RedsThen) ->
    case erlang:process_info(P, status) of
        {status, waiting} ->
            case erlang:process_info(P, reductions) of
                {reductions, Now} when Now =< Reds + ?READ_CHARGE -> full;
                _ -> moved
            end;
        _ -> moved
    end;
moved(_P, _Code, _Reds, _RedsThen) -> full.

read_in_time(P, St, Kind, Ref) when St =:= 0, Kind =/= cheap; St =:= 3, Kind =/= cheap ->
    case erlang:process_info(P, status) of
        {status, waiting} -> {late, Ref};
        _ -> Ref
    end;
read_in_time(_P, _St, _Kind, Ref) -> Ref.

%% A process read running that served our read at a receive which did not
%% wait: its run was over, the receive is not where it ran. The tests above
%% cannot see it when the receive found its next message there, or timed
%% out at once (`after 0`): RabbitMQ's gen_server2:drain/1, 36 % of the
%% broker's Erlang leaves at --top 10 --hz 997, where perf has all of
%% gen_server2 at 8 % and drain/1 in none of its samples. Such a read is
%% at its function's own frame, the top of the stack as read (not one
%% that stack/2 took out or put on: a BIF's), at a line one of the
%% module's receives is read at (learn/2, from its object code). A module
%% not looked up yet is asked for, and its samples are taken as they are
%% until its lines come.
served_at_receive(St, {M, _F, _A, Line} = Top, [Top | _], Rx, Agent)
  when (St =:= 0 orelse St =:= 3), Line > 0 ->
    case ets:member(Rx, {M, Line}) of
        true -> true;
        false ->
            ets:member(Rx, M) orelse (Agent ! {learn, M}),
            false
    end;
served_at_receive(_St, _CF, _Frames, _Rx, _Agent) -> false.

%% Stacks are interned under a 64-bit hash, not the stack itself: a stack
%% of 25 frames with their locations is about 8 KB as an ETS key, and on a
%% node whose stacks keep varying the table filled its 16 MiB bound within
%% seconds (a reset each time, and the samples in flight lost). The hash
%% covers each frame's module, function, arity and line, not the file name:
%% a file name is a string, one list cell per character, and hashing those
%% was the largest part of a sample's cost (6.8 of 7 us for 25 frames;
%% doc/benchmarks.md, "Measurements behind the code"), while within one version of a
%% module the line already tells the file. Two independent 32-bit hashes: a
%% collision among even 100,000 distinct stacks has a chance of about 3e-10.
%% frames/1 and stack_hash/1, shared with bench/fp_cost.erl, which times them:
-include("fp_stack.hrl").

stack_ref(Tab, {Hash, _} = Key) ->
    try ets:lookup_element(Tab, {s, Hash}, 2)
    catch error:badarg -> {new, Key}
    end.

lookup(Tab, Kind, Key) ->
    try ets:lookup_element(Tab, {Kind, Key}, 2)
    catch error:badarg -> {new, Key}
    end.

label(_Tab, []) -> 0;
label(Tab, {_Flags, Label, _Serial, _From, _Last}) -> lookup(Tab, l, Label);
label(_Tab, _) -> 0.

%% current_stacktrace may be empty or start above the current function.
%% A process that calls a BIF while our read is pending serves the read on
%% the BIF's way back, in erlang:bif_handle_signals_return/2, with the BIF
%% under it: both frames are of our making (6.6-11.6 % of the on-CPU
%% leaves on Yaws and ejabberd; erlang:put/2 was 53 % of RabbitMQ's, in
%% gen_server2:drain/1). A BIF has no frame of its own otherwise, and perf
%% counts its time for the Erlang function that called it: so both are
%% left out, and that caller is the leaf.
stack({erlang, bif_handle_signals_return, _}, ST) -> drop_bif(drop_signals_return(ST));
%% So does a process that was in a dirty NIF when our read came: it serves
%% the read on the NIF's way back, in erts_internal:dirty_nif_finalizer/1,
%% which it runs for no time of its own (20 % of the on-CPU leaves on Yaws,
%% its access log's writes; tests/e2e/on_cpu_default.t 13 of 85). Left out:
%% the NIF's caller is the leaf.
stack(_, [{erts_internal, dirty_nif_finalizer, 1, _} | ST]) -> ST;
stack({erts_internal, dirty_nif_finalizer, 1}, ST) -> ST;
stack({M, F, A}, [{M, F, A, _} | _] = ST) -> ST;
%% A hibernated process has no stack left: erlang:hibernate/3 is where it
%% is (OTP 27's Elixir supervisors hibernate), so it is kept.
stack({M, F, A}, []) -> [{M, F, A, []}];
stack({M, F, A}, ST) when is_atom(M), is_atom(F), is_integer(A) ->
    %% A BIF its stack does not hold is the last one the process called,
    %% not where it is: RabbitMQ's queue process, serving our read at
    %% gen_server2:drain/1's receive, was drawn 53 % in erlang:put/2, which
    %% drain/1 does not call (perf: 0.5 %); a spinner calling
    %% erlang:phash2/1 reads so too, and is drawn at its own frame.
    case erlang:is_builtin(M, F, A) of
        true -> ST;
        false -> [{M, F, A, []} | ST]
    end;
stack({M, F, A}, ST) -> [{M, F, A, []} | ST];
stack(_, ST) -> ST.

drop_signals_return([{erlang, bif_handle_signals_return, _, _} | ST]) -> drop_signals_return(ST);
drop_signals_return(ST) -> ST.

drop_bif([{M, F, A, _} | Rest] = ST) when is_atom(M), is_atom(F), is_integer(A) ->
    case erlang:is_builtin(M, F, A) of
        true -> Rest;
        false -> ST
    end;
drop_bif(ST) -> ST.

gc(Key, List) ->
    case lists:keyfind(Key, 1, List) of
        {_, V} when is_integer(V) -> V;
        _ -> 0
    end.

status(running) -> 0;
status(runnable) -> 1;
status(waiting) -> 2;
status(garbage_collecting) -> 3;
status(exiting) -> 4;
status(suspended) -> 5;
status(_) -> 2.

%% Names and initial calls, once per window; gone when the process has
%% ended since its sample was read.
info(false, _P, Dict) -> {none, Dict};
info(true, P, Dict) ->
    case erlang:process_info(P, [registered_name, initial_call]) of
        undefined -> gone;
        [{registered_name, Reg}, {initial_call, IC}] ->
            {PlInitial, PlLabel, Dict1} = dict_items(P, Dict),
            Initial = case PlInitial of
                          {M, F, A} -> mfa(M, F, A);
                          _ -> case IC of {M, F, A} -> mfa(M, F, A); _ -> <<>> end
                      end,
            Name = case Reg of
                       [] when PlLabel =:= undefined -> <<>>;
                       [] -> text(PlLabel);
                       _ -> text(Reg)
                   end,
            {{Initial, Name, Dict1}, Dict1}
    end.

%% OTP 26.2 and later read one key without copying the dictionary. Before,
%% process_info(P, dictionary) copies all of it (megabytes in some
%% processes): that is done once per process per capture, the result kept
%% here and by the coordinator, and at normal priority, so a big copy never
%% holds up the node's high-priority work.
dict_items(P, key) ->
    {dict_value(erlang:process_info(P, {dictionary, '$initial_call'})),
     dict_value(erlang:process_info(P, {dictionary, '$process_label'})), key};
dict_items(_P, {cached, Initial, Label} = Dict) ->
    {Initial, Label, Dict};
dict_items(P, unread) ->
    Prio = process_flag(priority, normal),
    D = erlang:process_info(P, dictionary),
    process_flag(priority, Prio),
    case D of
        {dictionary, L} ->
            Initial = proplists:get_value('$initial_call', L),
            Label = proplists:get_value('$process_label', L),
            {Initial, Label, {cached, Initial, Label}};
        _ -> {undefined, undefined, unread}
    end.

dict_value({{dictionary, _}, V}) -> V;
dict_value(_) -> undefined.

mfa(M, F, A) when is_integer(A) ->
    <<(text(M))/binary, ":", (text(F))/binary, "/", (integer_to_binary(A))/binary>>;
mfa(M, F, _) -> <<(text(M))/binary, ":", (text(F))/binary>>.

%% ---------------------------------------------------------------- helpers

now_us() -> erlang:system_time(microsecond).

text(A) when is_atom(A) -> atom_to_binary(A, utf8);
text(B) when is_binary(B) -> binary:part(B, 0, min(byte_size(B), 1024));
text(I) when is_integer(I) -> integer_to_binary(I);
text(L) when is_list(L) ->
    case unicode:characters_to_binary(L) of
        B when is_binary(B) -> text(B);
        _ -> text(iolist_to_binary(io_lib:format("~0tP", [L, 8])))
    end;
text(T) -> text(iolist_to_binary(io_lib:format("~0tP", [T, 8]))).

line(L) when is_integer(L), L >= 0 -> L;
line(_) -> 0.
