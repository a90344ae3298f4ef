"""Port checks agree with how the stack's servers bind (SO_REUSEADDR)."""

import socket

from stack.processes import port_bindable


def test_a_listening_port_is_not_bindable() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as server:
        server.bind(("127.0.0.1", 0))
        server.listen()

        assert port_bindable(server.getsockname()[1]) is False


def test_a_port_whose_server_closed_its_connections_first_is_bindable_at_once() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as server:
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        with socket.create_connection(("127.0.0.1", port)) as client:
            accepted, _ = server.accept()
            accepted.close()  # the server side closes first and keeps TIME_WAIT
            client.recv(1)

    assert port_bindable(port) is True
