"""``gaitforge studio [NAME|FILE]``: serve the interactive studio
(:mod:`gaitforge.studio`) in the browser until Ctrl-C. Loopback only unless
``--host`` is given (then a warning: anyone who reaches the port can use it)."""
from __future__ import annotations

import argparse
import sys
import time

from gaitforge.studio import launch

DEFAULT_HOST = launch.HOST
DEFAULT_PORT = launch.PORT


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("studio", help="interactive studio in the browser: modes, gaits, sliders, puppetry")
    p.add_argument("creature", nargs="?", default="dog", metavar="NAME|FILE",
                   help="built-in creature or creature file to start with (default: dog)")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port to serve on (default: {DEFAULT_PORT})")
    p.add_argument("--host", default=None,
                   help=f"address to listen on (default: {DEFAULT_HOST}, this machine only)")
    p.set_defaults(func=cmd_studio)


def cmd_studio(args) -> int:
    from gaitforge.errors import GaitforgeError

    if not 1 <= args.port <= 65535:
        raise GaitforgeError(f"--port must be from 1 to 65535, got {args.port}")
    host = DEFAULT_HOST if args.host is None else args.host
    if args.host is not None:
        print(f"gaitforge: warning: serving on {host}: anyone who can reach this address and port can use the "
              f"studio and upload files to it", file=sys.stderr)
    studio = launch.serve(args.creature, host=host, port=args.port)
    print(f"gaitforge studio: open {studio.url} in a browser (Ctrl-C stops)", flush=True)
    try:
        while True:
            time.sleep(3600)
    finally:
        studio.stop()
