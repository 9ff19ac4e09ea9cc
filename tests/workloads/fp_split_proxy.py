#!/usr/bin/env python3
"""fp_split_proxy.py EPMD_PORT NAME TARGET_ALIVE READY_FILE [RECORD_FILE] - a
node name that leads to a real node through a slow link, for
tests/e2e/split_packets.t. With RECORD_FILE, every byte the client sends
the node is also written there (tests/e2e/cookie_copies.t looks for the
cookie in it). With FP_PROXY_DELAY_S=N in the environment, each connection
is relayed only after N seconds (a node too busy to answer the handshake at
once, for tests/e2e/advice.t).

It registers NAME in epmd (ALIVE2_REQ on 127.0.0.1:EPMD_PORT, the socket kept
open as long as the name should live) with a port of its own, and relays
each connection to that port to TARGET_ALIVE's distribution port, byte for
byte. What the node sends back is cut: every read of more than 512 bytes is
passed on in two halves, 300 ms apart, so that a distribution packet stops
halfway, as one does on a loaded machine or a slow network. The handshake's
packets are smaller and pass at once. READY_FILE is written once NAME is
registered. Runs until killed.
"""
import os
import socket
import struct
import sys
import threading
import time

HALF_PAUSE_S = 0.3
CUT_ABOVE = 512


def epmd_port_of(epmd_port, alive):
    """The distribution port epmd knows for alive (PORT_PLEASE2_REQ)."""
    s = socket.create_connection(("127.0.0.1", epmd_port))
    name = alive.encode()
    s.sendall(struct.pack(">HB", 1 + len(name), 122) + name)
    data = b""
    while True:
        chunk = s.recv(4096)
        if not chunk:
            break
        data += chunk
    s.close()
    if len(data) < 4 or data[0] != 119 or data[1] != 0:
        sys.exit("fp_split_proxy: epmd does not know %s" % alive)
    return struct.unpack(">H", data[2:4])[0]


def register(epmd_port, alive, port):
    """ALIVE2_REQ: alive on port, as a normal node; the socket keeps it."""
    s = socket.create_connection(("127.0.0.1", epmd_port))
    name = alive.encode()
    body = struct.pack(">BHBBHHH", 120, port, 77, 0, 6, 5, len(name)) + name + struct.pack(">H", 0)
    s.sendall(struct.pack(">H", len(body)) + body)
    resp = s.recv(16)
    if len(resp) < 2 or resp[0] not in (121, 118) or resp[1] != 0:
        sys.exit("fp_split_proxy: epmd refused %s" % alive)
    return s


def pipe(src, dst, cut, record=None):
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            if record:
                record.write(data)
                record.flush()
            if cut and len(data) > CUT_ABOVE:
                half = len(data) // 2
                dst.sendall(data[:half])
                time.sleep(HALF_PAUSE_S)
                dst.sendall(data[half:])
            else:
                dst.sendall(data)
    except OSError:
        pass
    for s in (src, dst):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def main():
    epmd_port, name, target, ready = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
    record = open(sys.argv[5], "ab") if len(sys.argv) > 5 else None
    target_port = epmd_port_of(epmd_port, target)
    lsock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lsock.bind(("127.0.0.1", 0))
    lsock.listen(8)
    epmd_conn = register(epmd_port, name, lsock.getsockname()[1])  # open: the name lives
    with open(ready, "w"):
        pass
    delay = float(os.environ.get("FP_PROXY_DELAY_S", "0"))

    def relay(client):
        time.sleep(delay)  # FP_PROXY_DELAY_S: an overloaded node, slow to start the handshake
        node = socket.create_connection(("127.0.0.1", target_port))
        for s in (client, node):
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        threading.Thread(target=pipe, args=(client, node, False, record), daemon=True).start()
        threading.Thread(target=pipe, args=(node, client, True), daemon=True).start()

    while True:
        client, _ = lsock.accept()
        threading.Thread(target=relay, args=(client,), daemon=True).start()


if __name__ == "__main__":
    main()
