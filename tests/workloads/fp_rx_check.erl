%% fp_rx_check - checks sampler/fp_receives.hrl against the compiler's own
%% reading, in the test's node, never the profiled one:
%%  - code: for each .beam under the given directories, the line
%%    instruction indexes in force at its loop_recs must be those of
%%    beam_disasm's listing (which numbers line instructions the same way
%%    up to OTP 27; from OTP 28 on it spells out file and line, and the
%%    lines are compared);
%%  - lines: for each .erl given, compiled here, the lines must be those of
%%    the last line instruction before each loop_rec in the compiler's
%%    assembly listing (compile's to_asm, with file and line spelled out).
%% Prints one line per module that differs and a summary line.
-module(fp_rx_check).
-export([main/1]).

-include("../../sampler/fp_receives.hrl").

main(Args) ->
    {Sources, Dirs} = lists:partition(fun(A) -> filename:extension(A) =:= ".erl" end, Args),
    Beams = lists:append([filelib:wildcard(filename:join(D, "*.beam")) || D <- Dirs]),
    {N, L, D} = lists:foldl(fun check_code/2, {0, 0, 0}, Beams),
    io:format("code: checked ~b modules, ~b receive lines, ~b differ~n", [N, L, D]),
    {N2, L2, D2} = lists:foldl(fun check_lines/2, {0, 0, 0}, Sources),
    io:format("lines: checked ~b modules, ~b receive lines, ~b differ~n", [N2, L2, D2]).

check_code(File, {N, L, D}) ->
    {ok, Bin} = file:read_file(File),
    {beam_file, _, _, _, _, Funs} = beam_disasm:file(Bin),
    Want = lists:usort(lists:append([rx_of(Code, 0, []) || {function, _, _, _, Code} <- Funs])),
    Spelled = lists:any(fun({function, _, _, _, Code}) ->
                                lists:any(fun({line, [_ | _]}) -> true; (_) -> false end, Code)
                        end, Funs),
    case Spelled of
        true -> tally(File, receive_lines(Bin), {ok, Want}, {N, L, D});
        false -> tally(File, receive_line_indexes(Bin), Want, {N, L, D})
    end.

check_lines(Src, {N, L, D}) ->
    {ok, _, Bin} = compile:file(Src, [binary, report]),
    {ok, _, Asm} = compile:file(Src, [to_asm, binary, report]),
    Funs = element(tuple_size(Asm) - 1, Asm),      % OTP 29 has one more element before
    Want = lists:usort(lists:append([rx_of(Code, 0, []) || {function, _, _, _, Code} <- Funs])),
    tally(Src, receive_lines(Bin), {ok, Want}, {N, L, D}).

tally(_Name, Same, Same, {N, L, D}) -> {N + 1, L + count(Same), D};
tally(Name, Got, Want, {N, L, D}) ->
    io:format("~s: ours ~p, the compiler's ~p~n", [Name, Got, Want]),
    {N + 1, L + count(Want), D + 1}.

%% The line instruction indexes in force at the module's loop_recs, by
%% the include's own walk.
receive_line_indexes(<<"FOR1", _:32, "BEAM", Chunks/binary>>) ->
    lists:usort(rx_line_indexes(Chunks)).

count({ok, L}) -> length(L);
count(L) -> length(L).

%% beam_disasm's {line, Index}, the assembly's {line, [{location, F, L}]}.
rx_of([{line, [{location, _, Line}]} | T], _, Acc) -> rx_of(T, Line, Acc);
rx_of([{line, []} | T], _, Acc) -> rx_of(T, 0, Acc);
rx_of([{line, Idx} | T], _, Acc) when is_integer(Idx) -> rx_of(T, Idx, Acc);
rx_of([{loop_rec, _, _} | T], Line, Acc) when Line > 0 -> rx_of(T, Line, [Line | Acc]);
rx_of([_ | T], Line, Acc) -> rx_of(T, Line, Acc);
rx_of([], _, Acc) -> Acc.
