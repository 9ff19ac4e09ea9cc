%% demo_shop - a small, busy shop to point flameprof at.
%%
%% Start it in a node with demo_shop:start() (examples/demo.sh does). It runs:
%%   - a pool of gen_servers 'demo_cashier_N' that price baskets (CPU work),
%%     write orders to ETS and render receipts (binaries); about 1 in 10
%%     requests carries a seq_trace label {order, N}, which flameprof shows
%%     as a category frame;
%%   - client processes that send them requests in a loop;
%%   - 'demo_reporter', a deep recursive walk over a tree;
%%   - 'demo_slow_sink', a process whose mailbox floods;
%%   - 'demo_hog', a tight loop that never waits.
%% Every busy function has a name you will recognise in the flame graph.
-module(demo_shop).
-behaviour(gen_server).
-export([start/0, start/1, stop/0]).
-export([init/1, handle_call/3, handle_cast/2, handle_info/2]).
-export([client/2, reporter/0, slow_sink/0, hog/1]).

-define(CASHIERS, 4).

start() -> start(8).

start(Clients) ->
    %% The table needs an owner that outlives the caller (erl -eval exits).
    Parent = self(),
    Owner = spawn(fun() ->
                          ets:new(demo_orders, [named_table, public, set]),
                          Parent ! {self(), ready},
                          receive stop -> ok end
                  end),
    receive {Owner, ready} -> register(demo_orders_owner, Owner) end,
    [{ok, _} = gen_server:start({local, cashier(I)}, ?MODULE, I, [])
     || I <- lists:seq(1, ?CASHIERS)],
    [spawn(?MODULE, client, [I, 0]) || I <- lists:seq(1, Clients)],
    register(demo_reporter, spawn(?MODULE, reporter, [])),
    register(demo_slow_sink, spawn(?MODULE, slow_sink, [])),
    register(demo_hog, spawn(?MODULE, hog, [0])),
    ok.

stop() -> init:stop().

cashier(I) -> list_to_atom("demo_cashier_" ++ integer_to_list(I)).

%% ---------------------------------------------------------------- clients

client(I, N) ->
    Basket = [{item, (I * 7 + K) rem 50, 1 + K rem 3} || K <- lists:seq(1, 20)],
    Cashier = cashier(1 + N rem ?CASHIERS),
    case N rem 10 of
        0 -> seq_trace:set_token(label, {order, N rem 100});
        _ -> seq_trace:set_token([])
    end,
    {ok, _Receipt} = gen_server:call(Cashier, {checkout, Basket}, infinity),
    seq_trace:set_token([]),
    demo_slow_sink ! {order_done, I, N},
    client(I, N + 1).

%% ---------------------------------------------------------------- cashiers

init(I) -> {ok, #{id => I, orders => 0}}.

handle_call({checkout, Basket}, _From, #{orders := N} = S) ->
    Total = price_basket(Basket),
    ets:insert(demo_orders, {{self(), N rem 1000}, Total, Basket}),
    {reply, {ok, render_receipt(Basket, Total)}, S#{orders := N + 1}}.

handle_cast(_, S) -> {noreply, S}.
handle_info(_, S) -> {noreply, S}.

price_basket(Basket) ->
    lists:sum([unit_price(Item) * Qty || {item, Item, Qty} <- Basket]).

%% deliberately expensive: a few hundred reductions per item
unit_price(Item) ->
    lists:foldl(fun(K, Acc) -> (Acc * 31 + K) rem 1000003 end, Item, lists:seq(1, 200)).

render_receipt(Basket, Total) ->
    Lines = [io_lib:format("~p x ~p~n", [Item, Qty]) || {item, Item, Qty} <- Basket],
    iolist_to_binary([Lines, io_lib:format("total ~p~n", [Total])]).

%% ---------------------------------------------------------------- others

reporter() ->
    Tree = build_tree(12),
    walk_tree(Tree),
    reporter().

build_tree(0) -> leaf;
build_tree(D) -> {node, D, build_tree(D - 1), build_tree(D - 1)}.

walk_tree(leaf) -> 1;
walk_tree({node, _, L, R}) -> walk_tree(L) + walk_tree(R).

%% Reads one message in a hundred: its queue grows and shrinks.
slow_sink() ->
    receive _ -> timer:sleep(1) end,
    slow_sink().

hog(N) -> hog((N * 1103515245 + 12345) rem 2147483648).
