%% kv_service - a small key-value service for `flameprof requests`.
%%
%% A request crosses three processes: a client process calls request/2
%% (the entry), which parses in its own process, asks the kv_service
%% gen_server to handle it, whose handle/2 asks a pool worker for the
%% database step (db/2) before it replies; the client then formats the
%% answer. Every step takes a known time (cost/2), so the figures flameprof
%% shows can be checked against them:
%%
%%   flameprof requests --entry kv_service:request/2 --identity arg:1 \
%%     --tier parse=kv_service:parse/2 --tier handle=kv_service:handle/2 \
%%     --tier db=kv_service:db/2 --tier format=kv_service:format/2 NODE
%%
%% handle/2 includes the db step it waits for (the tiers nest); _total also
%% holds the time requests wait in the gen_server's queue.
%%
%% start() starts the server, the pool and 2 clients; start(Clients)
%% chooses; stop() stops them. The gen_server and the pool run on any OTP.
%%
%% measure() makes every step of a request that flameprof requests follows
%% (one whose process carries a seq_trace label) also keep the time it
%% really took; taken(Op, Tier) gives their median in microseconds and
%% taken(Op) how many requests of that kind were kept, until measure_end().
%% On a busy machine
%% a step takes longer than cost/2 says, so a test compares what flameprof
%% measured with what the node saw of the same requests.
-module(kv_service).
-behaviour(gen_server).
-export([start/0, start/1, stop/0, cost/2, request/2, measure/0, measure_end/0, taken/1, taken/2]).
-export([parse/2, handle/2, db/2, format/2]).
-export([init/1, handle_call/3, handle_cast/2, worker/0, client/0]).

-define(POOL, 4).

%% Milliseconds each step takes, per operation.
cost(create, parse) -> 12; cost(create, handle) -> 20; cost(create, db) -> 60; cost(create, format) -> 8;
cost(read, parse) -> 8;    cost(read, handle) -> 12;   cost(read, db) -> 24;  cost(read, format) -> 28;
cost(update, parse) -> 16; cost(update, handle) -> 16; cost(update, db) -> 44; cost(update, format) -> 8;
cost(delete, parse) -> 8;  cost(delete, handle) -> 16; cost(delete, db) -> 16; cost(delete, format) -> 8.

start() -> start(2).

start(Clients) ->
    {ok, _} = gen_server:start({local, kv_service}, ?MODULE, [], []),
    Pool = [spawn(?MODULE, worker, []) || _ <- lists:seq(1, ?POOL)],
    ok = gen_server:call(kv_service, {pool, Pool}),
    [register(list_to_atom("kv_client_" ++ integer_to_list(N)), spawn(?MODULE, client, []))
     || N <- lists:seq(1, Clients)],
    ok.

stop() ->
    [exit(P, kill) || P <- processes(), kv_client(erlang:process_info(P, registered_name))],
    gen_server:stop(kv_service).

kv_client({registered_name, N}) -> lists:prefix("kv_client_", atom_to_list(N));
kv_client(_) -> false.

%% ---------------------------------------------------------------- a request

request(Op, Key) ->
    Parsed = parse(Op, Key),
    Result = gen_server:call(kv_service, {Parsed, Key}, 10000),
    format(Op, Result).

parse(Op, Key) ->
    T0 = now_us(),
    spend(cost(Op, parse)),
    took(Op, parse, T0),
    {Op, Key}.

format(Op, Result) ->
    T0 = now_us(),
    spend(cost(Op, format)),
    Text = iolist_to_binary(io_lib:format("~p", [Result])),
    took(Op, format, T0),
    Text.

%% In the gen_server: its own work, then the pool worker's db step.
handle({Op, Key}, Pool) ->
    T0 = now_us(),
    spend(cost(Op, handle)),
    Worker = lists:nth(Key rem length(Pool) + 1, Pool),
    Ref = make_ref(),
    Worker ! {db, self(), Ref, Op, Key},
    Reply = receive {Ref, R} -> R after 10000 -> timeout end,
    took(Op, handle, T0),
    Reply.

db(Op, Key) ->
    T0 = now_us(),
    spend(cost(Op, db)),
    took(Op, db, T0),
    {Op, Key, ok}.

%% ---------------------------------------------------------------- the times steps took

measure() ->
    case whereis(kv_service_times) of
        undefined ->
            Parent = self(),
            Holder = spawn(fun() ->
                                   ets:new(kv_service_times, [named_table, public, duplicate_bag]),
                                   register(kv_service_times, self()),
                                   Parent ! {self(), ready},
                                   receive stop -> ok end
                           end),
            receive {Holder, ready} -> ok after 5000 -> error(timeout) end;
        _ ->
            true = ets:delete_all_objects(kv_service_times),
            ok
    end,
    true = ets:insert(kv_service_times, {measuring}),
    ok.

measure_end() ->
    true = ets:delete(kv_service_times, measuring),
    ok.

taken(Op, Tier) ->
    case lists:sort([Us || {_, Us} <- ets:lookup(kv_service_times, {Op, Tier})]) of
        [] -> none;
        Sorted -> lists:nth((length(Sorted) + 1) div 2, Sorted)
    end.

taken(Op) -> length(ets:lookup(kv_service_times, {Op, format})).

took(Op, Tier, T0) ->
    case ets:whereis(kv_service_times) =/= undefined andalso
         ets:member(kv_service_times, measuring) andalso seq_trace:get_token(label) of
        {label, _} -> ets:insert(kv_service_times, {{Op, Tier}, now_us() - T0});
        _ -> ok
    end.

now_us() -> erlang:monotonic_time(microsecond).

%% ---------------------------------------------------------------- processes

init([]) -> {ok, []}.

handle_call({pool, Pool}, _From, _) -> {reply, ok, Pool};
handle_call({Parsed, _Key}, _From, Pool) -> {reply, handle(Parsed, Pool), Pool}.

handle_cast(_, Pool) -> {noreply, Pool}.

worker() ->
    receive
        {db, From, Ref, Op, Key} -> From ! {Ref, db(Op, Key)}
    end,
    worker().

client() ->
    Op = lists:nth(rand:uniform(4), [create, read, update, delete]),
    request(Op, rand:uniform(1000)),
    client().

%% Waits Ms milliseconds: asleep for most of it, then a spin of up to 3 ms
%% to the deadline (a sleep may overrun by a millisecond or two on a busy
%% machine), so each step's time is exact without burning a core.
spend(Ms) ->
    Deadline = erlang:monotonic_time(microsecond) + Ms * 1000,
    Ms > 3 andalso timer:sleep(Ms - 3),
    spin(Deadline).

spin(Deadline) ->
    case erlang:monotonic_time(microsecond) < Deadline of
        true -> spin(Deadline);
        false -> ok
    end.
