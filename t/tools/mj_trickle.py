#!/usr/bin/env python3
"""mj_trickle - a proxy in front of a Redis on a unix socket that passes
what the client sends at once and what the server answers one byte at a
time, DELAY ms apart: a Redis that trickles its replies (t/540).

    mj_trickle.py LISTEN-SOCKET REDIS-SOCKET [DELAY-MS]

Listens on the unix socket LISTEN-SOCKET (made once it listens, so a
test may wait for it); each client gets a connection of its own to
REDIS-SOCKET.  Runs until killed."""
import os
import socket
import sys
import threading
import time


def up(client, server):
    """client -> server, as it comes"""
    try:
        while True:
            data = client.recv(65536)
            if not data:
                break
            server.sendall(data)
    except OSError:
        pass
    try:
        server.shutdown(socket.SHUT_WR)
    except OSError:
        pass


def down(server, client, delay):
    """server -> client, one byte every delay seconds"""
    try:
        while True:
            data = server.recv(65536)
            if not data:
                break
            for i in range(len(data)):
                time.sleep(delay)
                client.sendall(data[i:i + 1])
    except OSError:
        pass
    try:
        client.close()
    except OSError:
        pass


def main():
    if len(sys.argv) not in (3, 4):
        sys.stderr.write(__doc__)
        return 64
    listen, target = sys.argv[1], sys.argv[2]
    delay = (int(sys.argv[3]) if len(sys.argv) == 4 else 200) / 1000.0
    tmp = listen + ".tmp"
    if os.path.exists(tmp):
        os.unlink(tmp)
    ls = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    ls.bind(tmp)
    ls.listen(16)
    os.rename(tmp, listen)
    while True:
        client, _ = ls.accept()
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            server.connect(target)
        except OSError:
            client.close()
            continue
        threading.Thread(target=up, args=(client, server), daemon=True).start()
        threading.Thread(target=down, args=(server, client, delay),
                         daemon=True).start()


if __name__ == "__main__":
    sys.exit(main())
