%% fp_after_receive - where a draining server's time slices end (doc/truth.md,
%% "the first calls after a receive"). A server empties its mailbox with
%% `receive ... after 0` as RabbitMQ's gen_server2:drain/1 does, and files
%% each message through a fun that makes two calls (pick/1, then a tail call
%% to priority/3, which returns its argument), as gen_server2:in/2 does with
%% priority_queue:len/1 and prioritise_cast/3; then it computes (fib(6) a
%% message) and answers the 8 clients that each sent 20 messages.
%%
%%   erl +JPperf true -sname ar -pa DIR -eval 'fp_after_receive:start()'
%%   fp_after_receive:probe(3000)   % on the node: 3,000 reads, 1 ms apart
%%
%% probe/1 reads the server's status alone, then, where it was running, its
%% stack, as flameprof's agent does, and counts the stacks' top frames.
%% probe_after/1 sends no signal while the server runs: where it read
%% running it reads the status again until it is not (5 ms at most), and
%% reads the stack then, so the slice ended where the server's own work
%% ended it, not where our read did. start(varied) files each message
%% through 1 to 4 more calls (pad/1, by rand:uniform/1), so that a message
%% no longer costs the same reductions each time.
-module(fp_after_receive).
-export([start/0, start/1, probe/1, probe_after/1, pick/1, priority/3]).

start() -> start(fixed).

start(How) ->
    Server = spawn(fun() -> server(How) end),
    register(fp_after_receive, Server),
    [spawn(fun() -> client(Server) end) || _ <- lists:seq(1, 8)],
    ok.

server(fixed) ->
    loop(fun(Msg, Q) -> P = pick(Q), priority(Msg, P, Q) end);
server(varied) ->
    loop(fun(Msg, Q) -> P = pick(Q), pad(rand:uniform(4)), priority(Msg, P, Q) end).

pad(0) -> ok;
pad(N) -> pad(N - 1).

loop(F) ->
    receive M -> work(drain(F, [{0, M}])), loop(F) end.

drain(F, Q) ->
    receive M -> drain(F, file(F, M, Q))
    after 0 -> Q
    end.

file(F, M, Q) -> [{F(M, Q), M} | Q].
pick(Q) -> element(1, hd(Q)).
priority(_Msg, P, _Q) -> P.

work([]) -> ok;
work([{_, {done, From}} | T]) -> From ! done, work(T);
work([_ | T]) -> fib(6), work(T).

fib(N) when N < 2 -> N;
fib(N) -> fib(N - 1) + fib(N - 2).

client(Server) ->
    [Server ! {cast, N} || N <- lists:seq(1, 20)],
    Server ! {done, self()},
    receive done -> ok end,
    client(Server).

probe(N) -> count([top(whereis(fp_after_receive)) || _ <- lists:seq(1, N)]).

probe_after(N) -> count([top_after(whereis(fp_after_receive)) || _ <- lists:seq(1, N)]).

count(Tops) ->
    Count = lists:foldl(fun(K, D) -> maps:update_with(K, fun(V) -> V + 1 end, 1, D) end, #{}, Tops),
    [io:format("~6b ~p~n", [V, K]) || {K, V} <- lists:reverse(lists:keysort(2, maps:to_list(Count)))],
    ok.

top(Server) ->
    timer:sleep(1),
    case process_info(Server, status) of
        {status, running} ->
            case process_info(Server, current_stacktrace) of
                {current_stacktrace, [{M, F, A, _} | _]} -> {running, {M, F, A}};
                _ -> gone
            end;
        {status, S} -> S
    end.

top_after(Server) ->
    timer:sleep(1),
    case process_info(Server, status) of
        {status, running} ->
            Then = until_off(Server, erlang:monotonic_time(microsecond) + 5000),
            case process_info(Server, current_stacktrace) of
                {current_stacktrace, [{M, F, A, _} | _]} -> {running, Then, {M, F, A}};
                _ -> gone
            end;
        {status, S} -> S
    end.

until_off(P, Deadline) ->
    case process_info(P, status) of
        {status, running} ->
            case erlang:monotonic_time(microsecond) > Deadline of
                true -> still_running;
                false -> until_off(P, Deadline)
            end;
        {status, S} -> S
    end.
