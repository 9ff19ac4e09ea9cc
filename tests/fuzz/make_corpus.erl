%% make_corpus - records REAL agent messages as the decoder's seed corpus.
%%
%% Loads the built agent (build/gen/flameprof_agent_*.beam), starts it with
%% this shell process as its sink, runs busy, deep, odd-atom and seq_trace
%% labelled processes, and writes what the agent sends: each file is one
%% sequence of messages as the C-node receives them (term_to_binary, each
%% prefixed by its length, 4 bytes big-endian: the framing fuzz_decode.c
%% reads), starting with fp_started, so later batches refer to ids defined
%% by earlier ones. Run by tests/fuzz/make_corpus.sh; the output is
%% committed, so the fuzzers need no node.
-module(make_corpus).
-export([main/1, busy/1, odd/0, labelled/1]).

main([Beam, OutDir]) ->
    Ps = [spawn(?MODULE, busy, [I]) || I <- lists:seq(1, 6)] ++
         [spawn(?MODULE, odd, []), spawn(?MODULE, labelled, [0])],
    lists:foreach(fun(K) -> record(Beam, OutDir, K) end, lists:seq(1, 12)),
    [exit(P, kill) || P <- Ps],
    halt().

%% The agent deletes its module when it stops: load it for every run.
record(Beam, OutDir, K) ->
    {ok, Bin} = file:read_file(Beam),
    Mod = list_to_atom(filename:basename(Beam, ".beam")),
    {module, Mod} = code:load_binary(Mod, Beam, Bin),
    Opts = #{sink => self(), top => 2 + K, hz => 97.0, every_ms => 200,
             depth => 8 + 4 * K, pids => [], names => [<<"fp_corpus_odd">>]},
    Agent = spawn(Mod, init, [Opts]),
    Msgs = collect(erlang:monotonic_time(millisecond) + 100 + 40 * K, []),
    Agent ! stop,
    Rest = until_stopped([]),
    wait_unloaded(Mod),
    All = Msgs ++ Rest,
    %% a few messages per file keeps files small; the last file of each run
    %% holds the stop and the goodbye
    Chunks = chunks(All, 4),
    lists:foldl(fun(Chunk, N) ->
                        Name = io_lib:format("~s/agent_~2..0w_~2..0w.bin", [OutDir, K, N]),
                        ok = file:write_file(Name, [frame(M) || M <- Chunk]),
                        N + 1
                end, 1, [hd(Chunks)] ++ [lists:sublist(All, 1, 1) ++ C || C <- tl(Chunks)]).

%% Later chunks start with fp_started so each file stands alone; their
%% batches may refer to ids defined in an earlier file: the decoder must
%% refuse those cleanly, which is worth fuzzing too.
chunks([], _) -> [];
chunks(L, N) when length(L) =< N -> [L];
chunks(L, N) -> {A, B} = lists:split(N, L), [A | chunks(B, N)].

frame(M) -> B = term_to_binary(M), [<<(byte_size(B)):32>>, B].

collect(Until, Acc) ->
    Left = Until - erlang:monotonic_time(millisecond),
    receive M when Left > 0 -> collect(Until, [M | Acc])
    after max(0, Left) -> lists:reverse(Acc)
    end.

until_stopped(Acc) ->
    receive
        {fp_stopped, _, _} = M -> lists:reverse([M | Acc]);
        M -> until_stopped([M | Acc])
    after 5000 -> lists:reverse(Acc)
    end.

wait_unloaded(Mod) ->
    case erlang:module_loaded(Mod) orelse erlang:check_old_code(Mod) of
        false -> ok;
        true -> timer:sleep(20), wait_unloaded(Mod)
    end.

busy(I) -> busy_deep(I rem 5 + 3, I), busy(I + 1).
busy_deep(0, I) -> erlang:phash2(I);
busy_deep(N, I) -> R = busy_deep(N - 1, I), R + 1.

%% registered under a name and running functions whose atoms need escaping
odd() ->
    catch register(fp_corpus_odd, self()),
    'odd fun(+;->)'(1000),
    odd().
'odd fun(+;->)'(0) -> ok;
'odd fun(+;->)'(N) -> _ = erlang:phash2(N), 'odd fun(+;->)'(N - 1), ok.

%% carries a seq_trace label, so label definitions appear
labelled(N) ->
    seq_trace:set_token(label, {request, N rem 3, <<"ünï code">>}),
    _ = erlang:phash2(N),
    labelled(N + 1).
