%% fp_receives.hrl - where a module's receives are, read from its object code.
%%
%% A process that serves our stack read at a receive reports the receive's
%% location: the line of the last `line` instruction before its loop_rec,
%% which is the line of the call before the receive, or the function's own
%% first line when the receive comes first (gen_server2:drain/1, whose
%% `receive ... after 0` never waits, so no process is ever seen waiting
%% there). receive_lines/1 finds those lines in a .beam file's Code and Line
%% chunks, walking the instructions the way the loader reads them; it
%% needs no module of the node's (beam_lib and beam_disasm are the
%% compiler's, which a release may not have, and loading them would change
%% the node). Included by the agent (sampler/flameprof_agent.erl) and by
%% tests/workloads/fp_rx_check.erl, which checks it against the compiler's
%% own listing.
%%
%% receive_lines(Beam) -> {ok, [Line]} | error. error: not a plain BEAM file
%% (compressed, truncated), or code with an instruction newer than
%% ?RX_MAX_OPCODE (a release after OTP 29): no lines is always safe, it
%% only leaves the module's reads as they were.

%% Operand counts of the generic instructions 1..191 (lib/compiler's
%% genop.tab, read from beam_opcodes of OTP 25, 27 and 29: 1-180 as OTP 25
%% has them, 181 update_record/5 and 182 bs_match/3 from OTP 26,
%% 183 executable_line/2 from OTP 27, 184-191 (debug_line/4 to
%% get_record_field/5) from OTP 29).
-define(RX_ARITY,
        {1,3,0,2,3,2,2,3,2,4,5,2,3,2,3,2,1,1,0,0,0,0,2,1,1,2,4,4,4,4,4,4,4,4,4,4,
         4,3,3,3,3,3,3,3,2,2,2,2,2,2,2,2,2,2,2,2,2,3,3,3,1,2,1,2,3,3,3,3,3,2,1,1,
         0,1,1,3,2,2,2,5,5,5,4,2,1,1,2,2,5,5,5,2,1,0,1,2,2,4,4,4,4,3,1,2,1,1,1,2,
         6,3,5,1,2,2,3,5,7,7,7,5,3,2,2,5,6,2,2,2,2,1,3,4,0,8,6,2,6,5,4,5,4,5,4,3,
         3,3,3,3,0,1,1,7,1,5,5,2,3,3,4,0,0,2,2,2,3,4,3,2,2,4,3,1,2,1,1,1,6,3,0,1,
         5,3,2,4,6,2,4,3,6,3,5}).
-define(RX_MAX_OPCODE, 191).
-define(RX_INT_CODE_END, 3).
-define(RX_LOOP_REC, 23).
-define(RX_LINE, 153).

receive_lines(<<"FOR1", _:32, "BEAM", Chunks/binary>>) ->
    try
        {ok, LineChunk} = rx_chunk(<<"Line">>, Chunks),
        Lines = rx_line_table(LineChunk),
        {ok, lists:usort([element(I, Lines) || I <- rx_line_indexes(Chunks), I =< tuple_size(Lines)])}
    catch _:_ -> error
    end;
receive_lines(_) -> error.

%% The line instruction indexes (from 1) in force at the Code chunk's
%% loop_recs; a crash where the code is not one this table can read.
rx_line_indexes(Chunks) ->
    {ok, <<HdrSize:32, Hdr:HdrSize/binary, Instrs/binary>>} = rx_chunk(<<"Code">>, Chunks),
    <<_InstrSet:32, MaxOp:32, _/binary>> = Hdr,
    true = MaxOp =< ?RX_MAX_OPCODE,
    [I || I <- rx_walk(Instrs, 0, []), I >= 1].

rx_chunk(Id, <<Id:4/binary, Len:32, Data:Len/binary, _/binary>>) -> {ok, Data};
rx_chunk(Id, <<_:4/binary, Len:32, Rest/binary>>) ->
    Pad = (4 - Len rem 4) rem 4,
    <<_:Len/binary, _:Pad/binary, More/binary>> = Rest,
    rx_chunk(Id, More).

%% The Line chunk's locations, in the order the line instructions number
%% them from 1: an i-tagged term is a line of the current file, an
%% a-tagged one changes the file (which does not matter here: a frame's
%% line is compared within its module).
rx_line_table(<<0:32, _Flags:32, _NumInstrs:32, NumLines:32, _NumFnames:32, Items/binary>>) ->
    list_to_tuple(rx_lines(Items, NumLines, [])).

rx_lines(_, 0, Acc) -> lists:reverse(Acc);
rx_lines(<<B, _/binary>> = Bin, N, Acc) ->
    {V, Rest} = rx_int(Bin),
    case B band 7 of
        1 -> rx_lines(Rest, N - 1, [V | Acc]);
        2 -> rx_lines(Rest, N, Acc)
    end.

%% The line instruction indexes in force at each loop_rec.
rx_walk(<<?RX_INT_CODE_END, _/binary>>, _Line, Acc) -> Acc;
rx_walk(<<?RX_LINE, Rest/binary>>, _Line, Acc) ->
    {Idx, More} = rx_int(Rest),
    rx_walk(More, Idx, Acc);
rx_walk(<<?RX_LOOP_REC, Rest/binary>>, Line, Acc) ->
    rx_walk(rx_skip(2, Rest), Line, [Line | Acc]);
rx_walk(<<Op, Rest/binary>>, Line, Acc) when Op >= 1, Op =< ?RX_MAX_OPCODE ->
    rx_walk(rx_skip(element(Op, ?RX_ARITY), Rest), Line, Acc).

rx_skip(0, Bin) -> Bin;
rx_skip(N, Bin) -> rx_skip(N - 1, rx_arg(Bin)).

%% One operand in the compact term format (beam_asm's encoding): tags 0-6
%% carry a number; tag 7 is an extended term.
rx_arg(<<B, Rest/binary>>) when B band 7 =:= 7, B band 8 =:= 0 ->
    case B bsr 4 of
        0 -> <<_:8/binary, More/binary>> = Rest, More;          % float (old)
        1 -> {N, More} = rx_int(Rest), rx_skip(N, More);        % list
        2 -> rx_arg(Rest);                                      % float register
        3 -> {N, More} = rx_int(Rest), rx_skip(2 * N, More);    % allocation list
        4 -> rx_arg(Rest);                                      % literal
        5 -> rx_arg(rx_arg(Rest))                               % register and its type
    end;
rx_arg(Bin) -> element(2, rx_int(Bin)).

%% A number: 4 bits in the first byte, 11 in two, or its length in bytes.
rx_int(<<B, Rest/binary>>) when B band 8 =:= 0 -> {B bsr 4, Rest};
rx_int(<<B, Lo, Rest/binary>>) when B band 16 =:= 0 -> {((B bsr 5) bsl 8) bor Lo, Rest};
rx_int(<<B, Rest/binary>>) when B bsr 5 < 7 ->
    Len = (B bsr 5) + 2,
    <<V:Len/unit:8, More/binary>> = Rest,
    {V, More};
rx_int(<<_, Rest/binary>>) ->
    {Len0, Rest1} = rx_int(Rest),
    Len = Len0 + 9,
    <<_:Len/binary, More/binary>> = Rest1,
    {0, More}.
