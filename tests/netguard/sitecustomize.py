"""Install the network guard in child processes started by the tests."""

import os

if os.environ.get("JUPYTER_AGENT_NETGUARD") == "1":
    import sys

    sys.path.insert(0, os.path.dirname(__file__))
    import guard

    guard.install()
