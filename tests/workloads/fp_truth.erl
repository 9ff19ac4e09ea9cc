%% fp_truth - workload shapes for checking the on-CPU picture against
%% Linux perf (tests/e2e/truth_perf.t, bench/truth.sh). Each shape puts its
%% CPU in functions of known modules, so that the two instruments' leaf
%% distributions can be compared module by module.
%%
%%   spinners:  three processes that never wait, each computing in one
%%              module's code (fp_truth_work, lists, ordsets), without
%%              allocating (see spin_lists/0)
%%   allocating: a known limit, not a test: spinners that allocate (a list
%%              and a gb_tree built anew at every turn)
%%   calls:     a known limit, not a test: a spinner whose loop in one
%%              module makes many short calls into another (gb_trees
%%              lookups), beside the fib spinner
%%   service:   the shape most services have: 20 clients that call a
%%              computing server and sleep 1-3 ms, 30 processes on 2 ms
%%              timers, 10 that answer a 500 Hz ticker, and a burner that
%%              works 5 ms in every 25; nearly all the CPU is the server's
%%              computing function, nearly all the processes wake often
%%              and do little; the computing is fp_truth_work's, the waking
%%              and sleeping fp_truth's and timer's
%%   draining:  a server that empties its mailbox with a receive that never
%%              waits (`after 0`, as RabbitMQ's gen_server2:drain/1) before it
%%              computes what it got, fed by 10 clients that each send 10
%%              requests (fib of 8-10) and wait for its word: reads it serves
%%              at that receive are not where it ran, and no process is ever
%%              seen waiting there
%%   writing:   a process that writes 4 KiB to a port (`cat > /dev/null`) at
%%              every turn, beside the fib spinner: most of the writer's CPU
%%              is the port_command BIF's C and the kernel's, which only
%%              perf's call chains name (tests/e2e/truth_chains.t)
%%   sockets:   a TCP service on 127.0.0.1: 20 clients each send a number
%%              and wait for its answer, 20 server processes wait for their
%%              socket (passive gen_tcp) and compute fib of it (13-16), beside
%%              a spinner in lists' code; a process that waits for its
%%              socket has a signal it has not handled (the port's reply)
%%              whenever its data has come, so that a status read there is a
%%              signal it answers itself (doc/truth.md)
%%   saturated: eight spinners in three modules' code on a node with fewer
%%              schedulers, so that run queues are never empty
%%   strings:   a known limit, not a test: see start(strings)
%%   requests:  a known limit, not a test: a process per request, each
%%              computing about 2 ms (fp_truth_work:fib(27)) and exiting,
%%              about 200 a second, beside a spinner in lists' code: no
%%              selection window sees the requests (doc/truth.md)
-module(fp_truth).
-export([start/1, spin_fib/0, spin_lists/0, spin_sets/0, spin_trees/0, alloc_lists/0, alloc_trees/0, spin_string/0,
         server/0, client/1, timer_loop/0, ticker/1, listener/0, burner/0,
         requests/0, request/0, drainer/0, feeder/1, writer/0,
         sockets/1, sock_client/1]).

start(spinners) ->
    spawn(?MODULE, spin_fib, []),
    spawn(?MODULE, spin_lists, []),
    spawn(?MODULE, spin_sets, []),
    ok;
start(calls) ->
    spawn(?MODULE, spin_fib, []),
    spawn(?MODULE, spin_trees, []),
    ok;
start(allocating) ->
    spawn(?MODULE, spin_fib, []),
    spawn(?MODULE, alloc_lists, []),
    spawn(?MODULE, alloc_trees, []),
    ok;
start(saturated) ->
    [spawn(?MODULE, F, []) || F <- [spin_fib, spin_fib, spin_lists, spin_lists,
                                    spin_sets, spin_sets, spin_fib, spin_lists]],
    ok;
%% A spinner that calls lists:reverse/2, a BIF that can yield, at every turn
%% (string:tokens/2): on a node started with +JPperf, its stack is read at
%% that call far more often than perf sees it there (doc/truth.md).
start(strings) ->
    spawn(?MODULE, spin_string, []),
    spawn(?MODULE, spin_fib, []),
    ok;
start(requests) ->
    spawn(?MODULE, spin_lists, []),
    spawn(?MODULE, requests, []),
    ok;
start(writing) ->
    spawn(?MODULE, spin_fib, []),
    spawn(?MODULE, writer, []),
    ok;
start(draining) ->
    Server = spawn(?MODULE, drainer, []),
    [spawn(?MODULE, feeder, [Server]) || _ <- lists:seq(1, 10)],
    ok;
start(sockets) ->
    Self = self(),
    spawn(?MODULE, sockets, [Self]),
    Port = receive {listening, P} -> P end,
    [spawn(?MODULE, sock_client, [Port]) || _ <- lists:seq(1, 20)],
    spawn(?MODULE, spin_lists, []),
    ok;
start(service) ->
    register(fp_truth_server, spawn(?MODULE, server, [])),
    [spawn(?MODULE, client, [I]) || I <- lists:seq(1, 20)],
    [spawn(?MODULE, timer_loop, []) || _ <- lists:seq(1, 30)],
    Listeners = [spawn(?MODULE, listener, []) || _ <- lists:seq(1, 10)],
    spawn(?MODULE, ticker, [Listeners]),
    spawn(?MODULE, burner, []),
    ok.

spin_fib() -> fp_truth_work:fib(22), spin_fib().

%% A request process every 5 ms (timer:sleep's 1 ms steps make it fewer).
requests() ->
    spawn(?MODULE, request, []),
    timer:sleep(5),
    requests().

request() -> fp_truth_work:fib(27).

%% The spinners compute without allocating, each in one module's code: a
%% sum over a list built once, a walk to the end of an ordset built once.
%% perf names Erlang code only: the time a process spends in the garbage
%% collector is C to perf, while flameprof, reading which process runs,
%% draws it at the process's Erlang frames (start(allocating): a list and a
%% tree built anew at every turn spend 10 and 20 % of their time collecting).
%% And flameprof reads a running process's stack where its time slice ends,
%% at a call: a loop in one module making short calls into another is drawn
%% in the callee more than its time there (start(calls)). Both are limits
%% of the comparison, measured by `make truth` and said in doc/truth.md;
%% the spinners leave them out, so that what truth_perf.t measures is which
%% process flameprof finds on a CPU.
%%
%% No fun: a fold with fun erlang:'+'/2 spends a tenth of its time in a BIF,
%% C code that perf names by its C symbol and flameprof by the Erlang
%% function around it; one with an Erlang fun is read at the fun's calls,
%% where its time slices end, far more often than it runs there (a stack
%% read at a slice end is where the process's reductions ran out).
spin_lists() -> spin_lists(lists:seq(1, 2000)).

spin_lists(L) ->
    _ = lists:sum(L),
    spin_lists(L).

spin_sets() -> spin_sets(ordsets:from_list(lists:seq(1, 2000))).

spin_sets(S) ->
    false = ordsets:is_element(2001, S),
    spin_sets(S).

spin_trees() -> spin_trees(fp_truth_work:tree(500)).

spin_trees(T) ->
    fp_truth_work:lookups(500, T),
    spin_trees(T).

alloc_lists() ->
    _ = lists:sum(lists:seq(1, 2000)),
    alloc_lists().

alloc_trees() ->
    fp_truth_work:trees(500),
    alloc_trees().

%% The draining server: it waits for a request, takes all the others that
%% came meanwhile (drain/1 runs no code of its own: a receive and a cons),
%% then computes each.
drainer() ->
    receive N -> drain([N]) end.

drain(Acc) ->
    receive N -> drain([N | Acc])
    after 0 -> compute(lists:reverse(Acc))
    end.

compute([{ack, From} | T]) -> From ! ack, compute(T);
compute([N | T]) -> _ = fp_truth_work:fib(N), compute(T);
compute([]) -> drainer().

feeder(Server) ->
    [Server ! 7 + rand:uniform(3) || _ <- lists:seq(1, 10)],
    Server ! {ack, self()},
    receive ack -> ok end,
    feeder(Server).

spin_string() ->
    _ = string:tokens("the quick brown fox jumps over the lazy dog again", " "),
    spin_string().

%% The computing server: each request is a fib of 15-18.
server() ->
    receive
        {req, From, N} -> From ! {reply, fp_truth_work:fib(N)}, server()
    end.

client(I) ->
    fp_truth_server ! {req, self(), 15 + I rem 4},
    receive {reply, _} -> ok end,
    timer:sleep(1 + rand:uniform(3) - 1),
    client(I).

timer_loop() ->
    receive after 2 -> ok end,
    _ = lists:sum([1, 2, 3]),
    timer_loop().

ticker(Listeners) ->
    [L ! tick || L <- Listeners],
    receive after 2 -> ok end,
    ticker(Listeners).

listener() ->
    receive tick -> listener() end.

burner() ->
    fp_truth_work:burn_until(erlang:monotonic_time(millisecond) + 5),
    timer:sleep(20),
    burner().

%% The writing shape's writer: the port is its own, so it dies with it.
writer() ->
    Port = open_port({spawn_executable, "/bin/sh"},
                     [binary, out, {args, ["-c", "exec cat > /dev/null"]}]),
    write(Port, binary:copy(<<"x">>, 4096)).

write(Port, Block) ->
    true = erlang:port_command(Port, Block),
    write(Port, Block).

%% The sockets shape's listener: a server process per connection.
sockets(Parent) ->
    {ok, L} = gen_tcp:listen(0, [binary, {active, false}, {ip, {127, 0, 0, 1}}]),
    {ok, Port} = inet:port(L),
    Parent ! {listening, Port},
    sock_accept(L).

sock_accept(L) ->
    {ok, S} = gen_tcp:accept(L),
    P = spawn(fun() -> receive go -> sock_serve(S) end end),
    ok = gen_tcp:controlling_process(S, P),
    P ! go,
    sock_accept(L).

sock_serve(S) ->
    case gen_tcp:recv(S, 1) of
        {ok, <<N>>} ->
            ok = gen_tcp:send(S, <<(fp_truth_work:fib(N)):32>>),
            sock_serve(S);
        {error, _} -> ok
    end.

sock_client(Port) ->
    {ok, S} = gen_tcp:connect({127, 0, 0, 1}, Port, [binary, {active, false}]),
    sock_client(S, 0).

sock_client(S, I) ->
    ok = gen_tcp:send(S, <<(13 + I rem 4)>>),
    {ok, <<_:32>>} = gen_tcp:recv(S, 4),
    sock_client(S, I + 1).
