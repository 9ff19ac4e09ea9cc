%% fp_truth_work - where fp_truth's workloads compute: a module of its own,
%% so that a picture that puts the CPU at the waking and sleeping
%% (fp_truth, timer) and one that puts it here differ module by module.
-module(fp_truth_work).
-export([fib/1, burn_until/1, trees/1, tree/1, lookups/2]).

fib(N) when N < 2 -> N;
fib(N) -> fib(N - 1) + fib(N - 2).

%% fib(12) over and over until monotonic time T (ms).
burn_until(T) ->
    _ = fib(12),
    case erlang:monotonic_time(millisecond) >= T of
        true -> ok;
        false -> burn_until(T)
    end.

%% N keys entered into a gb_tree one by one (the time is gb_trees').
trees(N) -> trees(N, gb_trees:empty()).

trees(0, T) -> gb_trees:size(T);
trees(N, T) -> trees(N - 1, gb_trees:enter(N, N, T)).

%% A tree of keys 1..N, built once.
tree(N) -> gb_trees:from_orddict([{K, K} || K <- lists:seq(1, N)]).

%% Keys N..1 looked up in T: no allocation (the time is gb_trees').
lookups(0, _) -> ok;
lookups(N, T) -> _ = gb_trees:get(N, T), lookups(N - 1, T).
